import path from 'node:path'
import type { AppDeps } from './app.js'
import { createContentStore } from './adapters/content-store/index.js'
import { createGuardedFetch } from './adapters/http-out/guarded-fetch.js'
import type { Config } from './config.js'
import { openDatabase } from './db/connect.js'
import { migrateToLatest } from './db/migrator.js'
import { loadOrCreateMasterKey } from './modules/keys/master-key.js'

/** The real adapters for a running server: database (migrated), content store, outgoing HTTP, master key. */
export async function openRuntimeDeps(config: Config): Promise<AppDeps> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, preparedStatements: config.databasePreparedStatements, pgliteDir: path.join(config.dataDir, 'pglite') })
  try {
    await migrateToLatest(database.db)
    return {
      database,
      content: createContentStore({ ipfsApiUrl: config.ipfsApiUrl, db: database.db, maxBytes: config.contentMaxBytes }),
      httpGet: createGuardedFetch({ allowPrivate: config.outboundAllowPrivate, timeoutMs: config.outboundTimeoutMs, maxBytes: 256 * 1024, maxRedirects: 3 }),
      masterKey: await loadOrCreateMasterKey(config.dataDir, config.masterKey),
    }
  } catch (error) {
    await database.close()
    throw error
  }
}
