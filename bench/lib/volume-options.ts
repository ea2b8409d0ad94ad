import { assertLoopback, int, type Engine } from './options.js'

/** `npm run bench:volume` settings, all from the environment (bench/README.md, "Volume"). */
export interface VolumeOptions {
  engines: Engine[]
  /** Credential counts of the issuer to fill to, per engine, ascending; measured at each. */
  levels: Record<Engine, number[]>
  postgresUrl: string
  /** Credentials issued through the public API before the fast path copies them (the seed). */
  apiCredentials: number
  /** Timed requests per route and mode (sequential, then `concurrency` in flight). */
  samples: number
  concurrency: number
  /** Issuance phase: connections in flight and seconds. */
  issuanceConnections: number
  issuanceSeconds: number
}

const DEFAULT_LEVELS: Record<Engine, number[]> = { postgres: [1000, 100_000, 1_000_000], pglite: [1000, 100_000] }

export function readVolumeOptions(env: NodeJS.ProcessEnv = process.env): VolumeOptions {
  const engines = (env.BENCH_ENGINES ?? 'postgres,pglite')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const engine of engines)
    if (engine !== 'pglite' && engine !== 'postgres')
      throw new Error(`BENCH_ENGINES: unknown engine "${engine}" (pglite, postgres)`)
  const levelsFor = (engine: Engine) => {
    const raw = env[`BENCH_VOLUME_LEVELS_${engine.toUpperCase()}`] ?? env.BENCH_VOLUME_LEVELS
    if (!raw) return DEFAULT_LEVELS[engine]
    const levels = raw.split(',').map((s) => Number(s.trim()))
    if (levels.some((n) => !Number.isInteger(n) || n < 100 || n > 10_000_000))
      throw new Error('BENCH_VOLUME_LEVELS: whole numbers from 100 to 10,000,000, comma-separated')
    return [...levels].sort((a, b) => a - b)
  }
  const postgresUrl = env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  assertLoopback(postgresUrl, 'BENCH_DATABASE_URL')
  return {
    engines: engines as Engine[],
    levels: { postgres: levelsFor('postgres'), pglite: levelsFor('pglite') },
    postgresUrl,
    apiCredentials: int(env, 'BENCH_VOLUME_API_CREDENTIALS', 1000, 100, 10_000_000),
    samples: int(env, 'BENCH_VOLUME_SAMPLES', 40, 5, 10_000),
    concurrency: int(env, 'BENCH_VOLUME_CONCURRENCY', 4, 1, 64),
    issuanceConnections: int(env, 'BENCH_ISSUANCE_CONNECTIONS', 32, 1, 1000),
    issuanceSeconds: int(env, 'BENCH_SECONDS', 10, 1, 600),
  }
}

/** The big holder's share at a level: 500 up to 10k, then 5 % (500 / 5,000 / 50,000 at 1k / 100k / 1M, as in issue 26). */
export const bigHolderShare = (level: number) => Math.min(Math.floor(level / 2), Math.max(500, Math.floor(level / 20)))
/** The small holder's credentials, whatever the level. */
export const SMALL_HOLDER_CREDENTIALS = 10
