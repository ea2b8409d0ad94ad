/**
 * `npm run bench`: login throughput against the framework floor, per database engine.
 * For each engine one server process is started; against it, interleaved rounds measure the
 * req/s of a trivial route (the floor) and complete login flows/s (challenge + verify-challenge,
 * one did:key per virtual user). Prints a summary, a Markdown table for the README, and writes
 * bench/results/latest-login.json. Settings: BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS,
 * BENCH_WARMUP_SECONDS, BENCH_ENGINES=pglite,postgres, BENCH_DATABASE_URL, BENCH_SERVER=tsx|build (default tsx).
 */
import { spawnSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { installAbortHandlers, onAbort } from './lib/cleanup.js'
import { coreCount } from './lib/cpu.js'
import { runAgainstServer } from './lib/engine-run.js'
import { readOptions, type BenchOptions, type Engine } from './lib/options.js'
import { createBenchDatabase, postgresReachable } from './lib/postgres.js'
import { markdownTable, printEngine, summarize, TARGET_RATIO, type EngineSummary } from './lib/report.js'
import { prepareServer, projectRoot, startServer, type ServerBuild } from './lib/server-process.js'

const log = (line: string) => console.log(line)

/** The code measured: commit, plus "+dirty" when src/ has uncommitted changes (read-only git). */
function codeVersion(): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: projectRoot, encoding: 'utf8', timeout: 10_000 }).stdout?.trim() ?? ''
  const commit = git('rev-parse', '--short', 'HEAD') || 'unknown'
  return git('status', '--porcelain', '--', 'src') ? `${commit}+dirty` : commit
}

async function benchEngine(engine: Engine, options: BenchOptions, build: ServerBuild): Promise<EngineSummary | undefined> {
  if (engine === 'postgres' && !(await postgresReachable(options.postgresUrl))) {
    log(`\npostgres: not reachable at ${options.postgresUrl}; skipped`)
    return undefined
  }
  log(`\n${engine}: starting one server process (${options.server})`)
  const database = engine === 'postgres' ? await createBenchDatabase(options.postgresUrl) : undefined
  const forgetDatabase = database ? onAbort(() => database.drop()) : () => false
  try {
    const server = await startServer({ build, databaseUrl: database?.url })
    const forgetServer = onAbort(() => server.stop())
    try {
      return summarize(engine, await runAgainstServer(server, engine, options, log))
    } finally {
      await server.stop()
      forgetServer()
    }
  } finally {
    await database?.drop()
    forgetDatabase()
  }
}

async function main(): Promise<void> {
  const options = readOptions()
  // Every phase is bounded; this bounds the whole run too (start-up, build, cleanup included).
  const phases = options.rounds * 2 * options.seconds + 2 * options.warmupSeconds
  installAbortHandlers((options.engines.length * (phases + 180) + 240) * 1000)

  log(`login throughput vs framework floor: ${options.connections} connections, ${options.seconds} s per phase, ${options.rounds} rounds, engines ${options.engines.join(', ')}`)
  const code = codeVersion()
  log(`machine: ${coreCount()} cores (${os.cpus()[0]?.model ?? 'unknown'}), node ${process.version}, code ${code}`)
  log('note: the load generator runs on the same cores as the server (and PostgreSQL): fair to both phases, but noisy.')
  if (options.server === 'build') log('compiling src/ with tsc into a temporary directory ...')
  const build = await prepareServer(options.server)
  const forgetBuild = onAbort(() => build.dispose())
  const summaries: EngineSummary[] = []
  try {
    for (const engine of options.engines) {
      const summary = await benchEngine(engine, options, build)
      if (summary) summaries.push(summary)
    }
  } finally {
    await build.dispose()
    forgetBuild()
  }
  for (const s of summaries) printEngine(s)

  const markdown = markdownTable(summaries, options, code)
  log(`\nMarkdown for the README's performance section:\n\n${markdown}\n`)
  const resultsDir = path.join(projectRoot, 'bench/results')
  await mkdir(resultsDir, { recursive: true })
  const json = {
    date: new Date().toISOString(),
    code,
    machine: { cores: coreCount(), cpu: os.cpus()[0]?.model, node: process.version },
    settings: { connections: options.connections, seconds: options.seconds, rounds: options.rounds, server: options.server, targetRatio: round3(TARGET_RATIO) },
    engines: summaries,
  }
  await writeFile(path.join(resultsDir, 'latest-login.json'), `${JSON.stringify(json, null, 2)}\n`)
  log('written: bench/results/latest-login.json')
}

const round3 = (v: number) => Math.round(v * 1000) / 1000

main().catch((error) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error)
  process.exitCode = 1
})
