import path from 'node:path'
import type { AppDeps } from './app.js'
import { createContentStore } from './adapters/content-store/index.js'
import { createGuardedFetch } from './adapters/http-out/guarded-fetch.js'
import type { Config } from './config.js'
import { openDatabase } from './db/connect.js'
import { migrateToLatest } from './db/migrator.js'
import { pgliteTemplateFor } from './db/pglite-template.js'
import { loadOrCreateMasterKey } from './modules/keys/master-key.js'

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
  const database = await openDatabase({ databaseUrl: config.databaseUrl, preparedStatements: config.databasePreparedStatements, pgliteDir, pgliteTemplate: template })
  try {
    // PGlite opens (or initdb's a new directory) on its first statement: this one.
    await database.ping()
    done('database open', { engine: database.engine, ...(template ? { from: 'template' } : {}) })
    await migrateToLatest(database.db)
    done('migrations applied')
    const content = createContentStore({ ipfsApiUrl: config.ipfsApiUrl, db: database.db, maxBytes: config.contentMaxBytes })
    const httpGet = createGuardedFetch({ allowPrivate: config.outboundAllowPrivate, timeoutMs: config.outboundTimeoutMs, maxBytes: 256 * 1024, maxRedirects: 3 })
    const masterKey = await loadOrCreateMasterKey(config.dataDir, config.masterKey)
    done('adapters ready', { content: content.kind, chain: config.blockchainRpcUrl === undefined ? 'off' : 'configured' })
    return { database, content, httpGet, masterKey }
  } catch (error) {
    await database.close()
    throw error
  }
}
