/**
 * `npm run bench:load`: the full credential lifecycle under load. Many virtual users each run
 * flows back to back for a fixed time (closed loop): 3 logins (issuer, holder, verifier), issue,
 * presentation request, inbox, (BBS mode) anonymous-proof derivation with one predicate, approve
 * with a VP-JWT, verify (is_valid true), revoke. Per engine and credential kind one server process
 * is started on a fresh database. Reported: flows/s (median over windows), p50/p99 of the flow and
 * of each step, errors with the first messages, CPU per party, the server's RSS, heap and
 * event-loop delay over time and their trend (first vs last quarter); in BBS mode, flows/s beside
 * the ceiling the raw proof cost allows, measured in this process first. `--soak` runs 30 minutes
 * and writes bench/results/latest-soak.json; `--sweep` compares concurrency levels
 * (latest-load-sweep.json); otherwise latest-load.json. `--help` lists the flags.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { installAbortHandlers, onAbort } from './lib/cleanup.js'
import { coreCount } from './lib/cpu.js'
import {
  mainThreadProfile,
  printProfileSections,
  profileShare,
  summarizeProfile,
  type ProfileSummary,
} from './lib/cpuprofile.js'
import { categorizeProfile, type CategoryShare } from './lib/load-profile.js'
import { JsonClient } from './lib/http-client.js'
import { enrollParties, runLoad } from './lib/load-driver.js'
import { setUpIssuerParty, type IssuerParty, type Parties } from './lib/load-flow.js'
import { readLoadOptions, USAGE, type LoadMode, type LoadOptions } from './lib/load-options.js'
import {
  FLAT_MAX_GROWTH,
  FLAT_MAX_MB,
  loadMarkdown,
  printLoad,
  printSweep,
  summarizeLoad,
  sweepPoint,
  TARGET_FLOWS_PER_SECOND,
  type LoadSummary,
  type SweepPoint,
} from './lib/load-report.js'
import type { Engine } from './lib/options.js'
import { createBenchDatabase, postgresReachable } from './lib/postgres.js'
import { measureRawProofs, type RawProofCost } from './lib/proofs-run.js'
import { codeVersion, prepareServer, projectRoot, startServer, type ServerBuild } from './lib/server-process.js'
import { createVirtualUser } from './lib/virtual-user.js'

const log = (line: string) => console.log(line)

/**
 * Identities per virtual user, reused by every flow it runs (each flow still logs the three in
 * afresh): an issuer with its own profile and schema, a holder, a verifier. Returning users are
 * the steady state of a service; --fresh-dids measures first-time holders and verifiers instead.
 */
async function setUpParties(
  client: JsonClient,
  mode: LoadMode,
  count: number,
  sharedIssuer: boolean,
): Promise<Parties[]> {
  const shared = sharedIssuer ? await setUpIssuerParty(client, mode, 'Load University') : undefined
  const issuers: IssuerParty[] = []
  // A few at a time: set-up is not measured, but BBS issuer keys take a moment each.
  for (let i = 0; i < count; i += 8) {
    const batch = Array.from(
      { length: Math.min(8, count - i) },
      (_, j) => shared ?? setUpIssuerParty(client, mode, `Load University ${i + j}`),
    )
    issuers.push(...(await Promise.all(batch)))
  }
  return issuers.map((issuer) => ({ issuer, holder: createVirtualUser(), verifier: createVirtualUser() }))
}

interface EngineModeResult {
  summaries: LoadSummary[]
  /** With --cpu-prof: the server's main thread during each measured period. */
  profiles: Array<{ summary: ProfileSummary; categories: CategoryShare[] }>
}

async function runEngineMode(
  engine: Engine,
  mode: LoadMode,
  options: LoadOptions,
  build: ServerBuild,
  raw: RawProofCost | undefined,
): Promise<EngineModeResult> {
  const levels = options.sweep ?? [options.concurrency[mode]]
  const profileDir = path.join(projectRoot, 'bench/profiles', `load-${engine}-${mode}`)
  if (options.cpuProf) {
    await rm(profileDir, { recursive: true, force: true })
    await mkdir(profileDir, { recursive: true })
  }
  const windows: Array<[number, number]> = []
  const database = engine === 'postgres' ? await createBenchDatabase(options.postgresUrl) : undefined
  const forgetDatabase = database ? onAbort(() => database.drop()) : () => false
  let summaries: LoadSummary[]
  try {
    const server = await startServer({
      build,
      databaseUrl: database?.url,
      nodeArgs: options.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [],
    })
    const forgetServer = onAbort(() => server.stop())
    const maxUsers = Math.max(...levels)
    // Proof derivations wait for a BBS worker: generous timeouts, a stuck request still ends the flow.
    const client = new JsonClient(server.baseUrl, maxUsers, 60_000)
    try {
      log(
        `  setting up ${maxUsers} virtual users (issuer profile and schema${options.sharedIssuer ? ' shared' : ' each'}), one enrolment flow each ...`,
      )
      const parties = await setUpParties(client, mode, maxUsers, options.sharedIssuer)
      await enrollParties(client, mode, parties)
      summaries = []
      for (const concurrency of levels) {
        log(
          `  ${engine} / ${mode}: ${concurrency} virtual users, ${options.warmupSeconds} s warm-up + ${options.seconds} s measured`,
        )
        const run = await runLoad(
          server,
          client,
          parties,
          {
            mode,
            concurrency,
            warmupSeconds: options.warmupSeconds,
            seconds: options.seconds,
            windowSeconds: options.windowSeconds[mode],
            sampleSeconds: options.sampleSeconds,
            freshDids: options.freshDids,
            ownPostgres: engine === 'postgres',
            progressSeconds: options.soak ? 60 : 10,
          },
          log,
        )
        const summary = summarizeLoad(engine, run, options.sharedIssuer, raw)
        log(
          `  => ${summary.flowsPerSecond} flows/s, p50 ${summary.flowP50Ms} ms, p99 ${summary.flowP99Ms} ms, errors ${summary.errors.measured} (+${summary.errors.warmup} warm-up)`,
        )
        summaries.push(summary)
        windows.push(run.measuredHrUs)
      }
    } finally {
      client.close()
      // SIGTERM: the server exits normally, which is when node writes the profile.
      await server.stop()
      forgetServer()
    }
  } finally {
    await database?.drop()
    forgetDatabase()
  }
  if (!options.cpuProf) return { summaries, profiles: [] }
  const profile = await mainThreadProfile(profileDir)
  return {
    summaries,
    profiles: windows.map(([from, to]) => ({
      summary: summarizeProfile(profile, from, to, 30),
      categories: categorizeProfile(profile, from, to),
    })),
  }
}

function printProfile(
  label: string,
  s: ProfileSummary,
  categories: CategoryShare[],
  mainThreadMsPerFlow: number | null,
): void {
  const pct = profileShare
  console.log(
    `\n=== server CPU profile, ${label}: ${s.windowMs} ms sampled, main thread ${pct(s.busy).trim()} busy (shares below are of busy time)`,
  )
  console.log(
    `-- by activity${mainThreadMsPerFlow === null ? '' : ` (ms of main thread per flow, of ${mainThreadMsPerFlow} ms measured under the profiler)`}`,
  )
  for (const c of categories)
    console.log(
      `${pct(c.share)}  ${mainThreadMsPerFlow === null ? '' : `${(c.share * mainThreadMsPerFlow).toFixed(2).padStart(6)} ms  `}${c.category}`,
    )
  printProfileSections(s)
}

async function main(): Promise<void> {
  let options: ReturnType<typeof readLoadOptions>
  try {
    options = readLoadOptions()
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`)
    process.exitCode = 2
    return
  }
  if (options === 'help') {
    console.log(USAGE)
    return
  }
  const withBbs = options.modes.includes('bbs')
  const levels = options.sweep?.length ?? 1
  const perRun = levels * (options.warmupSeconds + options.seconds + 30) + 240
  installAbortHandlers(
    (options.engines.length * options.modes.length * perRun + (withBbs ? options.proofIterations * 3 + 60 : 0) + 240) *
      1000,
  )

  const code = codeVersion()
  const concurrencyText = options.modes
    .map((m) => `${m} ${options.sweep ? options.sweep.join('/') : options.concurrency[m]}`)
    .join(', ')
  log(
    `full-lifecycle load${options.soak ? ' (soak)' : ''}: engines ${options.engines.join(', ')}; modes ${options.modes.join(', ')}; virtual users ${concurrencyText}; ${options.warmupSeconds} s warm-up + ${options.seconds} s measured; windows ${options.modes.map((m) => `${m} ${options.windowSeconds[m]}`).join(', ')} s; samples every ${options.sampleSeconds} s`,
  )
  log(`machine: ${coreCount()} cores (${os.cpus()[0]?.model ?? 'unknown'}), node ${process.version}, code ${code}`)
  log(
    'note: the load generator runs on the same cores as the server (and PostgreSQL): figures are noisy when anything else runs.',
  )

  let raw: RawProofCost | undefined
  if (withBbs) {
    log(
      `\nraw anonymous-proof cost, measured alone in this process (no server running), ${options.proofIterations} iterations ...`,
    )
    raw = await measureRawProofs(options.proofIterations, log)
  }
  if (options.server === 'build') log('compiling src/ with tsc into a temporary directory ...')
  const build = await prepareServer(options.server)
  const forgetBuild = onAbort(() => build.dispose())
  const summaries: LoadSummary[] = []
  const sweeps: Array<{ engine: Engine; mode: LoadMode; points: SweepPoint[] }> = []
  const profiles: Array<{ label: string; mainThreadMsPerFlow: number | null } & EngineModeResult['profiles'][number]> =
    []
  try {
    for (const engine of options.engines) {
      if (engine === 'postgres' && !(await postgresReachable(options.postgresUrl))) {
        log(`\npostgres: not reachable at ${options.postgresUrl}; skipped`)
        continue
      }
      for (const mode of options.modes) {
        log(`\n${engine} / ${mode}: starting one server process (${options.server}) on a fresh database`)
        const result = await runEngineMode(engine, mode, options, build, raw)
        summaries.push(...result.summaries)
        if (options.sweep) sweeps.push({ engine, mode, points: result.summaries.map(sweepPoint) })
        result.profiles.forEach((profile, i) => {
          const run = result.summaries[i]!
          profiles.push({
            label: `${engine} / ${mode} / ${run.concurrency} virtual users`,
            mainThreadMsPerFlow: run.serverMainThreadMsPerFlow,
            ...profile,
          })
        })
      }
    }
  } finally {
    await build.dispose()
    forgetBuild()
  }

  for (const s of summaries) printLoad(s, options.soak)
  for (const s of sweeps) printSweep(s.engine, s.mode, s.points)
  for (const p of profiles) printProfile(p.label, p.summary, p.categories, p.mainThreadMsPerFlow)
  log(`\nMarkdown for the README's performance section:\n\n${loadMarkdown(summaries, code, options.soak)}\n`)

  if (profiles.length) {
    await writeFile(
      path.join(projectRoot, 'bench/profiles/load-summary.json'),
      `${JSON.stringify(profiles, null, 2)}\n`,
    )
    log(
      '\nprofile summaries: bench/profiles/load-summary.json (raw .cpuprofile files beside it: Chrome DevTools > Performance)',
    )
  }
  if (summaries.some((s) => s.errors.measured + s.errors.warmup > 0))
    log('note: some flows failed; see the errors above')
  if (options.cpuProf) {
    log("not written to bench/results/: figures taken under the profiler are not the service's")
    return
  }
  const file = options.soak ? 'latest-soak.json' : options.sweep ? 'latest-load-sweep.json' : 'latest-load.json'
  const resultsDir = path.join(projectRoot, 'bench/results')
  await mkdir(resultsDir, { recursive: true })
  const json = {
    date: new Date().toISOString(),
    code,
    machine: { cores: coreCount(), cpu: os.cpus()[0]?.model, node: process.version },
    settings: {
      soak: options.soak,
      seconds: options.seconds,
      warmupSeconds: options.warmupSeconds,
      windowSeconds: options.windowSeconds,
      sampleSeconds: options.sampleSeconds,
      concurrency: options.sweep ?? options.concurrency,
      freshDids: options.freshDids,
      sharedIssuer: options.sharedIssuer,
      server: options.server,
      targets: {
        flowsPerSecondPostgresJwt: TARGET_FLOWS_PER_SECOND,
        memoryFlat: { maxGrowth: FLAT_MAX_GROWTH, maxMb: FLAT_MAX_MB },
      },
    },
    ...(raw ? { rawProofs: raw } : {}),
    ...(sweeps.length ? { sweeps } : {}),
    runs: summaries,
  }
  await writeFile(path.join(resultsDir, file), `${JSON.stringify(json, null, 2)}\n`)
  log(`written: bench/results/${file}`)
}

main().catch((error) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error)
  process.exitCode = 1
})
