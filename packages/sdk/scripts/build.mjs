/**
 * Builds the SDK to JavaScript with type declarations (tsc -p tsconfig.build.json into dist/:
 * ESM .js, .d.ts and their maps), so plain `node` and bundlers can import it. `--if-stale`
 * (the root's prepare, scripts/build-console.ts) builds only when dist is missing or older than a
 * source. Plain Node, no tsx; tsconfig.build.json stands alone (the Docker build stage installs
 * before it copies the root tsconfig.json). Without TypeScript (a production install,
 * `npm ci --omit=dev`) nothing is built: the build stage or the published tarball brings dist.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const dir = path.resolve(import.meta.dirname, '..')
const entry = path.join(dir, 'dist/index.js')
const sources = ['src', 'tsconfig.build.json', 'package.json'].map((f) => path.join(dir, f))

function newest(file) {
  if (!existsSync(file)) return 0
  const info = statSync(file)
  if (!info.isDirectory()) return info.mtimeMs
  return readdirSync(file).reduce((latest, name) => Math.max(latest, newest(path.join(file, name))), info.mtimeMs)
}

let tsc
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
} catch {
  if (!existsSync(entry)) console.warn('@credential-service/sdk: TypeScript is not installed, so dist/ is not built')
  process.exit(0)
}
if (
  process.argv.includes('--if-stale') &&
  existsSync(entry) &&
  statSync(entry).mtimeMs >= Math.max(...sources.map(newest))
)
  process.exit(0)
console.log('Building the SDK (packages/sdk/dist) ...')
// A clean build: a source removed since must not leave its old module behind.
rmSync(path.join(dir, 'dist'), { recursive: true, force: true })
const result = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.build.json')], {
  cwd: dir,
  stdio: 'inherit',
})
process.exit(result.status ?? 1)
