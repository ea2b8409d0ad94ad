import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import pg from 'pg'
import { openDatabase, type DatabaseHandle } from '../../src/db/connect.js'
import { migrateToLatest } from '../../src/db/migrator.js'

/**
 * A fresh, migrated database for one test file, on the engine the runner chose
 * (TEST_DB_ENGINE = pglite | postgres). PGlite starts from a data-dir tarball the runner made
 * once (initdb is ~3 s, migrating ~0.8 s), already migrated when scripts/run-tests.ts made it;
 * PostgreSQL gets its own database, dropped on close.
 */
export const TEST_ENGINE = (process.env.TEST_DB_ENGINE ?? 'pglite') as 'pglite' | 'postgres'
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

export async function createTestDatabase(): Promise<DatabaseHandle> {
  if (TEST_ENGINE === 'postgres') return createPostgresDatabase()
  const templatePath = process.env.TEST_PGLITE_MIGRATED_TEMPLATE ?? process.env.TEST_PGLITE_TEMPLATE
  const template = templatePath ? new Blob([await readFile(templatePath)]) : undefined
  const handle = await openDatabase({ pgliteTemplate: template })
  await migrateToLatest(handle.db)
  return handle
}

async function createPostgresDatabase(): Promise<DatabaseHandle> {
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await admin.connect()
  try {
    await admin.query(`create database ${name}`)
    // The service prepares its statements (src/db/prepared-statements.ts); PostgreSQL would switch
    // a statement to its generic plan only after five runs on one connection. Forcing that plan
    // from the first run makes every test exercise it (a partial-index ON CONFLICT with a
    // parameter, for one, plans only with the value known).
    await admin.query(`alter database ${name} set plan_cache_mode = force_generic_plan`)
  } finally {
    await admin.end()
  }
  const url = new URL(TEST_DATABASE_URL)
  url.pathname = `/${name}`
  const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 5 })
  await migrateToLatest(handle.db)
  return {
    ...handle,
    close: async () => {
      await handle.close()
      const cleanup = new pg.Client({ connectionString: TEST_DATABASE_URL })
      await cleanup.connect()
      try {
        await cleanup.query(`drop database if exists ${name} with (force)`)
      } finally {
        await cleanup.end()
      }
    },
  }
}
