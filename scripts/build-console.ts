/**
 * Builds the web console (packages/console, Vite) into packages/console/dist, which the service
 * serves at /app. `--if-stale` (npm's prepare and prestart) builds only when dist is missing or
 * older than a source of the console or of a workspace package it bundles, so `npm ci && npm start`
 * sets everything up and a second start costs a few stat calls. Plain Node (24 strips the types),
 * no tsx: a production install (`npm ci --omit=dev`, the Docker image) runs prepare too.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const consoleDir = path.join(root, 'packages/console')
const index = path.join(consoleDir, 'dist/index.html')
/** What goes into the bundle: the console's sources and the workspace packages it imports (the SDK). */
const sources = [
  path.join(consoleDir, 'src'),
  path.join(consoleDir, 'index.html'),
  path.join(consoleDir, 'vite.config.ts'),
  path.join(consoleDir, 'package.json'),
  path.join(root, 'packages/sdk/src'),
]

function newest(file: string): number {
  if (!existsSync(file)) return 0
  const info = statSync(file)
  if (!info.isDirectory()) return info.mtimeMs
  return readdirSync(file).reduce((latest, name) => Math.max(latest, newest(path.join(file, name))), info.mtimeMs)
}

const vite = path.join(root, 'node_modules/vite/bin/vite.js')
// A production install has no Vite (a dev dependency): the build stage built the console already.
if (!existsSync(consoleDir) || !existsSync(vite)) process.exit(0)
const ifStale = process.argv.includes('--if-stale')
if (ifStale && existsSync(index) && statSync(index).mtimeMs >= Math.max(...sources.map(newest))) process.exit(0)
// The console bundles the SDK's built dist (its package exports): build it first when stale.
spawnSync(process.execPath, [path.join(root, 'packages/sdk/scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' })
console.log('Building the web console (packages/console) ...')
const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: consoleDir, stdio: 'inherit' })
if (result.status !== 0) {
  console.error('The web console did not build; the API still starts, /app answers 503 until it does.')
  process.exit(ifStale ? 0 : 1)
}
