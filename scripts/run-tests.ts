/**
 * `npm test`: unit tests once, then every database-touching suite (test/integration) on each
 * engine: embedded PGlite always, PostgreSQL when reachable (TEST_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test). Under CI=true an unreachable PostgreSQL fails the
 * run instead of being skipped. Then the clients' own tests (packages/<name>/test: the SDK, the CLI,
 * the console; on PGlite, some in Chromium). Ends with one "N passed, N failed" line over all runs.
 * Each file runs in its own process group, at most TEST_CONCURRENCY (3) at once, within
 * TEST_FILE_TIMEOUT_MS (15 min): a hung file is killed with what it started and reported, and the
 * run always ends.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { postgresReachable } from '../bench/lib/postgres.js'
import { killRunningTestFiles, runTestFile, type TestFileResult } from './lib/test-file-runner.js'
import { openDatabase } from '../src/db/connect.js'
import { migrateToLatest } from '../src/db/migrator.js'

const root = path.resolve(import.meta.dirname, '..')
const tmp = path.join(root, '.tmp')
const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const filter = process.argv.slice(2)

/** The `*.test.ts` files under `dir` (relative to the root), narrowed by the command line's fragments. */
async function listTests(dir: string): Promise<string[]> {
  const full = path.join(root, dir)
  if (!existsSync(full)) return []
  const files = (await readdir(full, { recursive: true }))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join(dir, f))
  return filter.length ? files.filter((f) => filter.some((x) => f.includes(x))) : files.sort()
}

/** packages/<name>/test of every workspace package. */
async function listClientTests(): Promise<string[]> {
  const packages = path.join(root, 'packages')
  if (!existsSync(packages)) return []
  const names = (await readdir(packages, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
  return (await Promise.all(names.map((name) => listTests(path.join('packages', name, 'test'))))).flat()
}

async function pgliteVersion(): Promise<string> {
  return (
    JSON.parse(await readFile(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as {
      version: string
    }
  ).version
}

/** An initdb'd PGlite data dir as a tarball, made once per PGlite version (initdb is ~3 s). */
async function pgliteTemplate(): Promise<string> {
  const file = path.join(tmp, `pglite-template-${await pgliteVersion()}.tar`)
  if (!existsSync(file)) {
    await mkdir(tmp, { recursive: true })
    const db = new PGlite()
    await db.waitReady
    const dump = await db.dumpDataDir('none')
    await writeFile(file, Buffer.from(await dump.arrayBuffer()))
    await db.close()
  }
  return file
}

/**
 * The same data dir with every migration applied, made through the service's own PGlite thread
 * and migrator, so each test database starts migrated (migrating costs ~0.8 s per test app on
 * PGlite). Named by the migrations' source, so a changed migration makes a new one. Migrations
 * from an empty database are still run here, and by the server-process tests on every run.
 */
async function migratedPgliteTemplate(initdb: string): Promise<string> {
  const dir = path.join(root, 'src/db/migrations')
  const hash = createHash('sha256')
  for (const name of (await readdir(dir)).sort()) hash.update(name).update(await readFile(path.join(dir, name)))
  const file = path.join(tmp, `pglite-migrated-${await pgliteVersion()}-${hash.digest('hex').slice(0, 12)}.tar`)
  if (!existsSync(file)) {
    const dataDir = await mkdtemp(path.join(tmp, 'pglite-migrated-'))
    try {
      const handle = await openDatabase({ pgliteDir: dataDir, pgliteTemplate: new Blob([await readFile(initdb)]) })
      await migrateToLatest(handle.db)
      await handle.close()
      const db = new PGlite({ dataDir })
      // dumpDataDir before the database is ready never settles.
      await db.waitReady
      const dump = await db.dumpDataDir('none')
      await db.close()
      await writeFile(file, Buffer.from(await dump.arrayBuffer()))
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  }
  return file
}

interface RunResult {
  pass: number
  fail: number
  cancelled: number
  code: number
  failures: string[]
}

/** How many test files run at once (each in its own process). */
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY) || 3)
/**
 * A file still running after this is killed with everything it started (its process group) and
 * counted as failed: a hung server or browser must not hold the run for ever. Generous, since a
 * loaded machine makes every file slower; one test's own limit is --test-timeout (5 min).
 */
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS) || 15 * 60_000

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killRunningTestFiles()
    process.exit(130)
  })
}

function runFile(file: string, env: Record<string, string>): Promise<TestFileResult> {
  return runTestFile(file, {
    cwd: root,
    env: { ...process.env, ...env } as Record<string, string>,
    timeoutMs: fileTimeoutMs,
  })
}

async function run(label: string, files: string[], env: Record<string, string>): Promise<RunResult> {
  console.log(`\n=== ${label}: ${files.length} file(s) ===`)
  const total: RunResult = { pass: 0, fail: 0, cancelled: 0, code: 0, failures: [] }
  const failedFiles: string[] = []
  const leaky: string[] = []
  const queue = [...files]
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const result = await runFile(file, env)
      process.stdout.write(`${result.output}\n`)
      total.pass += result.pass
      total.fail += result.fail
      total.cancelled += result.cancelled
      const header = result.output.split('\n', 1)[0]!.slice(4)
      if (result.code !== 0) {
        total.code = 1
        failedFiles.push(header)
        total.failures.push(`${label}: ${header}`, ...failingTests(result.output))
      } else if (result.leftBehind.length) leaky.push(header)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker))
  console.log(
    `=== ${label}: ${total.pass} passed, ${total.fail} failed${total.cancelled ? `, ${total.cancelled} cancelled` : ''}`,
  )
  for (const failed of failedFiles) console.log(`    failed: ${failed}`)
  for (const file of leaky) console.log(`    note: ${file}`)
  return total
}

/** The failing tests' own lines (node:test marks them ✖), so the run's last lines name them. */
function failingTests(output: string): string[] {
  const lines = output.split('\n').filter((line) => /^\s*✖ /.test(line) && !/^✖ failing tests:/.test(line.trim()))
  return [...new Set(lines.map((line) => `      ${line.trim()}`))].slice(0, 10)
}

const results: RunResult[] = []
const unit = await listTests('test/unit')
const integration = await listTests('test/integration')
const processTests = await listTests('test/process')
const clients = await listClientTests()
const template = await pgliteTemplate()
const env = { TEST_PGLITE_TEMPLATE: template, TEST_PGLITE_MIGRATED_TEMPLATE: await migratedPgliteTemplate(template) }
if (unit.length) results.push(await run('unit', unit, env))
if (processTests.length) results.push(await run('server process (embedded PGlite)', processTests, env))
if (integration.length) {
  results.push(await run('integration on PGlite', integration, { ...env, TEST_DB_ENGINE: 'pglite' }))
  if (await postgresReachable(pgUrl)) {
    results.push(
      await run('integration on PostgreSQL', integration, {
        ...env,
        TEST_DB_ENGINE: 'postgres',
        TEST_DATABASE_URL: pgUrl,
      }),
    )
  } else if (process.env.CI) {
    console.error(`PostgreSQL at ${pgUrl} is not reachable; CI requires both engines.`)
    results.push({ pass: 0, fail: 1, cancelled: 0, code: 1, failures: [`PostgreSQL at ${pgUrl} is not reachable`] })
  } else {
    console.warn(`\nPostgreSQL at ${pgUrl} is not reachable: the PostgreSQL pass was NOT run (set TEST_DATABASE_URL).`)
  }
}
// The clients talk to the service over HTTP only, so one engine (PGlite) is enough for them.
if (clients.length) {
  // cps and the examples run as a user runs them, on the built SDK and CLI: rebuilt first if a source changed since install.
  for (const build of ['packages/sdk/scripts/build.mjs', 'packages/cli/scripts/build.mjs']) {
    if (
      spawnSync(process.execPath, [path.join(root, build), '--if-stale'], { cwd: root, stdio: 'inherit' }).status !== 0
    )
      console.error(`${build} failed: the clients' tests run on what was built before`)
  }
  results.push(await run('clients (SDK, CLI, console)', clients, { ...env, TEST_DB_ENGINE: 'pglite' }))
}
const pass = results.reduce((n, r) => n + r.pass, 0)
const fail = results.reduce((n, r) => n + r.fail, 0)
// A cancelled test (a file over its time limit) fails the run too; it is counted apart from the
// failures (on Node 20 such a file already exits non-zero, so `code` says so as well).
const cancelled = results.reduce((n, r) => n + r.cancelled, 0)
const failed = results.some((r) => r.code !== 0) || fail > 0 || cancelled > 0
// Repeated at the very end: a CI log is often read from its tail only.
const failures = results.flatMap((r) => r.failures)
if (failures.length) console.log(`\nfailed:\n${failures.join('\n')}`)
console.log(`\ntests: ${pass} passed, ${fail} failed${cancelled ? `, ${cancelled} cancelled` : ''}`)
process.exit(failed ? 1 : 0)
