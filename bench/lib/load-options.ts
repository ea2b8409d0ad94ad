/**
 * Settings of `npm run bench:load`: command-line flags first, then LOAD_* environment variables,
 * then the defaults below. BENCH_DATABASE_URL and BENCH_SERVER are shared with `npm run bench`.
 */
import { parseArgs } from 'node:util'
import { assertLoopback, type Engine, type ServerMode } from './options.js'

/** jwt: JWT-VC only (the schema opts out of BBS), VP-JWT; bbs: BBS-signed, anonymous proof with a predicate. */
export type LoadMode = 'jwt' | 'bbs'

export interface LoadOptions {
  engines: Engine[]
  modes: LoadMode[]
  /** Measured seconds per engine and mode (after the warm-up). */
  seconds: number
  warmupSeconds: number
  /** Virtual users per mode: each runs one flow at a time, back to back (closed loop). */
  concurrency: Record<LoadMode, number>
  /** Flows/s is the median over windows of this length, per mode (a BBS flow takes seconds: longer windows). */
  windowSeconds: Record<LoadMode, number>
  /** Memory and CPU sampling interval. */
  sampleSeconds: number
  soak: boolean
  /** When set: one measured run per concurrency level instead of one run (against one server per engine and mode). */
  sweep: number[] | undefined
  /** New holder and verifier DIDs for every flow (first logins, the holder's ML-KEM pair on its first credential). */
  freshDids: boolean
  /** One issuer for all virtual users (its status list is shared by every revocation). */
  sharedIssuer: boolean
  /** Raw derive + verify iterations measured in this process before the BBS runs. */
  proofIterations: number
  /** Server under `node --cpu-prof`; the measured period is summarised (bench/lib/cpuprofile.ts). */
  cpuProf: boolean
  postgresUrl: string
  server: ServerMode
}

/**
 * Virtual users by mode, chosen with `--sweep` on the 2-core machine (bench/README.md): JWT flows
 * are short, so enough users to keep both cores busy through every step's I/O wait; a BBS flow
 * holds a BBS worker (one per core) for ~1 s of proofs, so a few users already saturate them.
 */
export const DEFAULT_CONCURRENCY: Record<LoadMode, number> = { jwt: 16, bbs: 4 }
export const SOAK_SECONDS = 1800

export const USAGE = `npm run bench:load -- [flags]

  --engine pglite|postgres|both   database engine(s) (LOAD_ENGINE; default both)
  --mode jwt|bbs|both             credential kind (LOAD_MODE; default both, jwt with --soak)
  --duration SECONDS              measured time per engine and mode (LOAD_DURATION; default 60, 1800 with --soak)
  --warmup SECONDS                unmeasured load first (LOAD_WARMUP; default 10)
  --concurrency N                 virtual users (LOAD_CONCURRENCY; default jwt ${DEFAULT_CONCURRENCY.jwt}, bbs ${DEFAULT_CONCURRENCY.bbs})
  --window SECONDS                flows/s is the median over windows this long (LOAD_WINDOW; default jwt 5, bbs 15, 60 with --soak)
  --sample SECONDS                memory/CPU sampling interval (LOAD_SAMPLE; default 2, 10 with --soak)
  --soak                          30-minute run, memory every 10 s, writes latest-soak.json (LOAD_SOAK=1)
  --sweep N,N,...                 one run per concurrency level, writes latest-load-sweep.json (LOAD_SWEEP)
  --fresh-dids                    new holder and verifier DIDs every flow (LOAD_FRESH_DIDS=1)
  --shared-issuer                 one issuer for every virtual user (LOAD_SHARED_ISSUER=1)
  --proof-iterations N            raw BBS derive+verify iterations, bbs mode (LOAD_PROOF_ITERATIONS; default 10)
  --cpu-prof                      server under node --cpu-prof; prints where its main thread spent the measured period
                                  (profiles in bench/profiles/load-<engine>-<mode>/, not committed) (LOAD_CPU_PROF=1)
  --server tsx|build              how the server runs (BENCH_SERVER; default tsx)
  BENCH_DATABASE_URL              PostgreSQL admin URL, loopback only (default postgres://postgres@127.0.0.1:5432/test)`

export function readLoadOptions(
  argv: string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
): LoadOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      engine: { type: 'string' },
      mode: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      concurrency: { type: 'string' },
      window: { type: 'string' },
      sample: { type: 'string' },
      soak: { type: 'boolean' },
      sweep: { type: 'string' },
      'fresh-dids': { type: 'boolean' },
      'shared-issuer': { type: 'boolean' },
      'proof-iterations': { type: 'string' },
      'cpu-prof': { type: 'boolean' },
      server: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) return 'help'
  const flag = (value: boolean | undefined, envName: string) =>
    value ?? ['1', 'true', 'yes'].includes((env[envName] ?? '').trim().toLowerCase())
  const soak = flag(values.soak, 'LOAD_SOAK')
  const pick = (value: string | undefined, envName: string) => (value ?? env[envName])?.trim() || undefined

  const engines = both(pick(values.engine, 'LOAD_ENGINE') ?? 'both', ['pglite', 'postgres'] as const, '--engine')
  const modes = both(pick(values.mode, 'LOAD_MODE') ?? (soak ? 'jwt' : 'both'), ['jwt', 'bbs'] as const, '--mode')
  const concurrencyRaw = pick(values.concurrency, 'LOAD_CONCURRENCY')
  const concurrency =
    concurrencyRaw === undefined
      ? { ...DEFAULT_CONCURRENCY }
      : { jwt: int(concurrencyRaw, '--concurrency', 1, 1000), bbs: int(concurrencyRaw, '--concurrency', 1, 1000) }
  const sweepRaw = pick(values.sweep, 'LOAD_SWEEP')
  const sweep = sweepRaw === undefined ? undefined : sweepRaw.split(',').map((s) => int(s, '--sweep', 1, 1000))
  if (sweep && soak) throw new Error('--sweep and --soak do not combine')
  const server = pick(values.server, 'BENCH_SERVER') ?? 'tsx'
  if (server !== 'tsx' && server !== 'build') throw new Error('--server must be tsx or build')
  const postgresUrl = env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  assertLoopback(postgresUrl, 'BENCH_DATABASE_URL')
  const seconds = int(
    pick(values.duration, 'LOAD_DURATION') ?? String(soak ? SOAK_SECONDS : 60),
    '--duration',
    5,
    24 * 3600,
  )
  const windowRaw = pick(values.window, 'LOAD_WINDOW')
  const windowSeconds =
    windowRaw !== undefined
      ? { jwt: int(windowRaw, '--window', 1, 3600), bbs: int(windowRaw, '--window', 1, 3600) }
      : soak
        ? { jwt: 60, bbs: 60 }
        : { jwt: 5, bbs: 15 }
  // Never fewer than one whole window in the measured period.
  for (const mode of ['jwt', 'bbs'] as const) windowSeconds[mode] = Math.min(windowSeconds[mode], seconds)
  return {
    engines,
    modes,
    seconds,
    warmupSeconds: int(pick(values.warmup, 'LOAD_WARMUP') ?? '10', '--warmup', 0, 600),
    concurrency,
    windowSeconds,
    sampleSeconds: int(pick(values.sample, 'LOAD_SAMPLE') ?? (soak ? '10' : '2'), '--sample', 1, 600),
    soak,
    sweep,
    freshDids: flag(values['fresh-dids'], 'LOAD_FRESH_DIDS'),
    sharedIssuer: flag(values['shared-issuer'], 'LOAD_SHARED_ISSUER'),
    proofIterations: int(
      pick(values['proof-iterations'], 'LOAD_PROOF_ITERATIONS') ?? '10',
      '--proof-iterations',
      3,
      1000,
    ),
    cpuProf: flag(values['cpu-prof'], 'LOAD_CPU_PROF'),
    postgresUrl,
    server,
  }
}

function both<T extends string>(raw: string, choices: readonly [T, T], name: string): T[] {
  if (raw === 'both') return [...choices]
  const picked = raw.split(',').map((s) => s.trim())
  for (const p of picked)
    if (!choices.includes(p as T)) throw new Error(`${name} must be ${choices.join(', ')} or both (got "${p}")`)
  return choices.filter((c) => picked.includes(c))
}

function int(raw: string, name: string, min: number, max: number): number {
  const value = Number(raw.trim())
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`)
  return value
}
