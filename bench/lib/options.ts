import { cpus } from 'node:os'

/** Benchmark settings, all from the environment so `npm run bench` needs no arguments. */
export type Engine = 'pglite' | 'postgres'
export type ServerMode = 'tsx' | 'build'
/** Which parts of `npm run bench` run: both by default. */
export type BenchPart =
  | 'login'
  | 'issuance'
  | 'verification'
  | 'proofs'
  | 'anchoring'
  | 'formats'
  | 'vc-api'
  | 'oid4vc'
  | 'mdoc'

export interface BenchOptions {
  /** Length of every measured phase (floor or login), seconds. */
  seconds: number
  /** Concurrent connections for the floor and virtual users for the login phase. */
  connections: number
  /** Interleaved floor/login rounds; medians are reported because the machine is noisy. */
  rounds: number
  warmupSeconds: number
  engines: Engine[]
  /** Admin URL: a fresh database is created next to it for each run. */
  postgresUrl: string
  /**
   * How the server runs: through tsx (from source) or compiled (dist/main.js, like `npm start` and production).
   * Measured: no difference in steady state (tsx only transpiles at load), so tsx by default.
   */
  server: ServerMode
  /** BENCH_ONLY=login|issuance|verification|proofs|anchoring|formats|vc-api|oid4vc: run one part; all by default. */
  parts: BenchPart[]
  /** Concurrent issuing connections (closed loop, one request in flight each). */
  issuanceConnections: number
  /** Timed iterations per raw crypto operation (medians are reported). */
  cryptoIterations: number
  /** Concurrent connections of the anonymous-proof part (each derivation holds a BBS worker ~0.6 s). */
  proofConnections: number
  /** Timed raw derive + verify iterations of the anonymous-proof part (~0.9 s each). */
  proofIterations: number
  /**
   * Concurrent connections of the VC API part's bbs-2023 phases (each operation holds a BBS worker
   * 100-400 ms): 4 per core by default, enough to keep the pool busy without a long queue.
   */
  vcApiBbsConnections: number
}

export function readOptions(env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const engines = (env.BENCH_ENGINES ?? 'pglite,postgres')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const engine of engines) {
    if (engine !== 'pglite' && engine !== 'postgres')
      throw new Error(`BENCH_ENGINES: unknown engine "${engine}" (pglite, postgres)`)
  }
  const server = env.BENCH_SERVER ?? 'tsx'
  if (server !== 'tsx' && server !== 'build') throw new Error('BENCH_SERVER must be tsx or build')
  const only = env.BENCH_ONLY?.trim() || undefined
  const parts: BenchPart[] = [
    'login',
    'issuance',
    'verification',
    'proofs',
    'anchoring',
    'formats',
    'vc-api',
    'oid4vc',
    'mdoc',
  ]
  if (only !== undefined && !(parts as string[]).includes(only))
    throw new Error(`BENCH_ONLY must be one of ${parts.join(', ')}`)
  const connections = int(env, 'BENCH_CONNECTIONS', 50, 1, 1000)
  const postgresUrl = env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  assertLoopback(postgresUrl, 'BENCH_DATABASE_URL')
  return {
    seconds: int(env, 'BENCH_SECONDS', 10, 1, 600),
    connections,
    rounds: int(env, 'BENCH_ROUNDS', 3, 1, 20),
    warmupSeconds: int(env, 'BENCH_WARMUP_SECONDS', 5, 0, 120),
    engines: engines as Engine[],
    postgresUrl,
    server,
    parts: only ? [only as BenchPart] : parts,
    issuanceConnections: int(env, 'BENCH_ISSUANCE_CONNECTIONS', connections, 1, 1000),
    cryptoIterations: int(env, 'BENCH_CRYPTO_ITERATIONS', 200, 10, 10_000),
    proofConnections: int(env, 'BENCH_PROOF_CONNECTIONS', 4, 1, 100),
    proofIterations: int(env, 'BENCH_PROOF_ITERATIONS', 25, 3, 1000),
    vcApiBbsConnections: int(env, 'BENCH_VC_API_BBS_CONNECTIONS', Math.min(connections, 4 * cpus().length), 1, 1000),
  }
}

/** The benchmark only ever loads this machine. */
export function assertLoopback(url: string, name: string): void {
  const host = new URL(url).hostname
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(host))
    throw new Error(`${name} must point at 127.0.0.1 (got ${host})`)
}

/** A whole-number setting from the environment, within [min, max]; the fallback when unset. */
export function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}`)
  return value
}
