/**
 * Builds the CLI to JavaScript (tsc -p tsconfig.build.json into dist/), so `cps` runs under plain
 * `node` on the SDK's own dist. `--if-stale` (the root's prepare) builds only when dist is missing
 * or older than a source; `--out-dir <dir>` builds elsewhere (a test's copy). Plain Node, no tsx;
 * without TypeScript (a production install) nothing is built and bin/cps.js runs the sources.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const dir = path.resolve(import.meta.dirname, '..')
const at = process.argv.indexOf('--out-dir')
const outDir = at > 0 ? path.resolve(process.argv[at + 1]) : path.join(dir, 'dist')
const entry = path.join(outDir, 'main.js')
const sources = ['src', 'tsconfig.build.json', 'package.json'].map((f) => path.join(dir, f))

export function newest(file) {
  if (!existsSync(file)) return 0
  const info = statSync(file)
  if (!info.isDirectory()) return info.mtimeMs
  return readdirSync(file).reduce((latest, name) => Math.max(latest, newest(path.join(file, name))), info.mtimeMs)
}

let tsc
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
} catch {
  process.exit(0)
}
if (
  process.argv.includes('--if-stale') &&
  existsSync(entry) &&
  statSync(entry).mtimeMs >= Math.max(...sources.map(newest))
)
  process.exit(0)
console.log(`Building the CLI (${path.relative(process.cwd(), outDir) || outDir}) ...`)
// A clean build: a source removed since must not leave its old module behind.
rmSync(outDir, { recursive: true, force: true })
const result = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.build.json'), '--outDir', outDir], {
  cwd: dir,
  stdio: 'inherit',
})
process.exit(result.status ?? 1)
