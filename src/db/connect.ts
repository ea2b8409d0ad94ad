import fs from 'node:fs/promises'
import path from 'node:path'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { lockDataDir, type DataDirLock } from './data-dir-lock.js'
import type { DB } from './database.js'
import { PGliteDialect } from './pglite-dialect.js'
import { INT8_OID } from './pglite-thread-messages.js'
import { PGliteThread } from './pglite-thread.js'
import { PreparingClient } from './prepared-statements.js'
import { UnstorableInputDialect } from './unstorable-input.js'

export interface DatabaseOptions {
  /** postgres:// URL; unset selects embedded PGlite. */
  databaseUrl?: string
  /** PGlite data directory; unset with no URL means in-memory (tests). */
  pgliteDir?: string
  /** A PGlite data-dir tarball to start from (tests reuse one initdb). */
  pgliteTemplate?: Blob
  poolSize?: number
  /** node-postgres: named prepared statements (src/db/prepared-statements.ts); default true. */
  preparedStatements?: boolean
}

export interface DatabaseHandle {
  db: Kysely<DB>
  engine: 'pglite' | 'postgres'
  /** Cheap liveness probe for health checks. */
  ping(): Promise<void>
  close(): Promise<void>
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  let db: Kysely<DB>
  let engine: DatabaseHandle['engine']
  // PostgreSQL serves many instances by design; an embedded directory, one process (data-dir-lock.ts).
  let lock: DataDirLock | undefined
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      // A pooler in transaction mode (PgBouncer before 1.21, or without max_prepared_statements)
      // hands each statement any server connection, where a prepared name may not exist.
      Client: options.preparedStatements === false ? pg.Client : PreparingClient,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    })
    // An idle client whose connection dies (server restart, failover, an administrator's kill)
    // is dropped by the pool and replaced on demand; unhandled, its error would end the process.
    pool.on('error', () => undefined)
    db = new Kysely<DB>({ dialect: new UnstorableInputDialect(new PostgresDialect({ pool })) })
    engine = 'postgres'
  } else {
    if (options.pgliteDir) {
      await fs.mkdir(path.dirname(options.pgliteDir), { recursive: true })
      lock = await lockDataDir(options.pgliteDir)
    }
    let thread
    try {
      thread = new PGliteThread({ dataDir: options.pgliteDir, template: await options.pgliteTemplate?.arrayBuffer() })
    } catch (error) {
      await lock?.release()
      throw error
    }
    db = new Kysely<DB>({ dialect: new UnstorableInputDialect(new PGliteDialect(thread)) })
    engine = 'pglite'
  }
  return {
    db,
    engine,
    ping: async () => {
      await sql`select 1`.execute(db)
    },
    close: async () => {
      // Released only once PGlite has written its last page; if closing fails, the lock stays
      // until this process ends and is then stale.
      await db.destroy()
      await lock?.release()
    },
  }
}
