/**
 * Compiles the service (src/, tsconfig.build.json) into dist/ with tsc, so `npm start` runs plain
 * `node dist/main.js` instead of transpiling every module at every start. Files that are not
 * TypeScript (JSON-LD contexts read at run time) are copied beside the output, and the template
 * a new data directory's embedded database starts from is made (src/db/pglite-template.ts). `--if-stale`
 * (npm's prepare and prestart) compiles only when a source is newer than the last build, so a
 * start with nothing changed costs a few stat calls. Plain Node (24 strips the types), no tsx:
 * a production install (`npm ci --omit=dev`, the Docker image) runs prepare too, without tsc,
 * and then leaves dist/ as the image's build stage made it.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const root = path.resolve(import.meta.dirname, '..')
const src = path.join(root, 'src')
const dist = path.join(root, 'dist')
/** Written after a whole build, dated when the build began: a source edited meanwhile is newer, so the next start rebuilds. */
const stamp = path.join(dist, '.build-stamp')
const tsBuildInfo = path.join(dist, '.tsbuildinfo')
const tsc = path.join(root, 'node_modules/typescript/bin/tsc')
// package-lock.json: a new PGlite there makes a new database template.
const inputs = [
  src,
  path.join(root, 'tsconfig.json'),
  path.join(root, 'tsconfig.build.json'),
  path.join(root, 'package.json'),
  path.join(root, 'package-lock.json'),
]

function newest(file: string): number {
  if (!existsSync(file)) return 0
  const info = statSync(file)
  if (!info.isDirectory()) return info.mtimeMs
  return readdirSync(file).reduce((latest, name) => Math.max(latest, newest(path.join(file, name))), info.mtimeMs)
}

/** The files under `dir` that tsc does not emit, relative to it. */
function assets(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.ts'))
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
}

// No sources (the Docker image's dependency layer) or no compiler (a production install): nothing to do here.
if (!existsSync(src) || !existsSync(tsc)) process.exit(0)
const ifStale = process.argv.includes('--if-stale')
if (ifStale && existsSync(stamp) && statSync(stamp).mtimeMs >= Math.max(...inputs.map(newest))) process.exit(0)

console.log('Compiling the service (src -> dist) ...')
const began = new Date()
// tsc's incremental record says what it emitted, not what is still there: without the entry, start over.
if (!existsSync(path.join(dist, 'main.js'))) rmSync(tsBuildInfo, { force: true })
const result = spawnSync(
  process.execPath,
  [tsc, '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', tsBuildInfo],
  { cwd: root, stdio: 'inherit' },
)
if (result.status !== 0) {
  console.error('The service did not compile (see above); fix the error, or run it from source: npx tsx src/main.ts')
  process.exit(1)
}
for (const file of assets(src)) {
  mkdirSync(path.dirname(path.join(dist, file)), { recursive: true })
  copyFileSync(path.join(src, file), path.join(dist, file))
}
// A new data directory's embedded database starts from a copy made here (src/db/pglite-template.ts).
const { buildPgliteTemplate } = (await import(pathToFileURL(path.join(dist, 'db/pglite-template.js')).href)) as {
  buildPgliteTemplate: () => Promise<boolean>
}
if (await buildPgliteTemplate()) console.log('Made the embedded database template (dist/pglite-template.tar).')
writeFileSync(stamp, `${began.toISOString()}\n`)
utimesSync(stamp, began, began)
