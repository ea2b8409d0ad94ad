import path from 'node:path'
import { sql, type Kysely } from 'kysely'
import type { AppDeps } from './app.js'
import { createContentStore } from './adapters/content-store/index.js'
import { createGuardedFetch } from './adapters/http-out/guarded-fetch.js'
import type { Config } from './config.js'
import { openDatabase } from './db/connect.js'
import type { DB } from './db/database.js'
import { migrateToLatest } from './db/migrator.js'
import { migrations } from './db/migrations/index.js'
import { pgliteTemplateFor } from './db/pglite-template.js'
import { loadOrCreateMasterKey } from './modules/keys/master-key.js'

/**
 * How many of this build's migrations the database has not applied, from one read of Kysely's
 * record; undefined when that cannot be read (a new database). Kysely's migrator looks up its
 * tables through the catalog's full table and column listing first, slow on PGlite, which a
 * restart with nothing to apply need not pay; anything else goes through the migrator.
 */
async function pendingMigrations(db: Kysely<DB>): Promise<number | undefined> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db)
    const applied = new Set(rows.map((row) => row.name))
    // One applied here but unknown to this build (an older build started on a newer database): the migrator decides.
    if ([...applied].some((name) => !Object.hasOwn(migrations, name))) return undefined
    return Object.keys(migrations).filter((name) => !applied.has(name)).length
  } catch {
    return undefined
  }
}

/** Told when each start-up step has finished, with its duration (server.ts logs them). */
export type PhaseListener = (phase: string, ms: number, fields?: Record<string, unknown>) => void

/** The real adapters for a running server: database (migrated), content store, outgoing HTTP, master key. */
export async function openRuntimeDeps(config: Config, onPhase: PhaseListener = () => undefined): Promise<AppDeps> {
  let started = performance.now()
  const done = (phase: string, fields?: Record<string, unknown>) => {
    const now = performance.now()
    onPhase(phase, now - started, fields)
    started = now
  }
  const pgliteDir = path.join(config.dataDir, 'pglite')
  // Run from source (tsx: tests, tools), dist/ may be another version's; and the tests start
  // servers on empty directories to run every migration from scratch.
  const fromSource = import.meta.url.endsWith('.ts')
  const template = config.databaseUrl || fromSource ? undefined : await pgliteTemplateFor(pgliteDir)
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    preparedStatements: config.databasePreparedStatements,
    pgliteDir,
    pgliteTemplate: template,
  })
  try {
    // PGlite opens (or initdb's a new directory) on its first statement: this one.
    await database.ping()
    done('database open', { engine: database.engine, ...(template ? { from: 'template' } : {}) })
    const pending = await pendingMigrations(database.db)
    if (pending !== 0) await migrateToLatest(database.db)
    done('migrations applied', { pending: pending ?? 'unknown' })
    const content = createContentStore({
      ipfsApiUrl: config.ipfsApiUrl,
      db: database.db,
      maxBytes: config.contentMaxBytes,
    })
    const httpGet = createGuardedFetch({
      allowPrivate: config.outboundAllowPrivate,
      timeoutMs: config.outboundTimeoutMs,
      maxBytes: 256 * 1024,
      maxRedirects: 3,
    })
    const masterKey = await loadOrCreateMasterKey(config.dataDir, config.masterKey)
    done('adapters ready', {
      content: content.kind,
      chain: config.blockchainRpcUrl === undefined ? 'off' : 'configured',
    })
    return { database, content, httpGet, masterKey }
  } catch (error) {
    await database.close()
    throw error
  }
}
