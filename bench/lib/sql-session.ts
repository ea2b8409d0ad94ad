import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'

/**
 * Direct SQL on a benchmark database while its server is stopped: node-postgres for PostgreSQL,
 * an in-process PGlite on the server's data directory for PGlite (the directory is the server's
 * own, so only one of them may hold it at a time).
 */
export interface SqlSession {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows of ad-hoc bench queries, read at named fields
  query<R = Record<string, any>>(text: string, params?: unknown[]): Promise<R[]>
  close(): Promise<void>
}

export async function openPostgres(url: string): Promise<SqlSession> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  return {
    query: async (text, params) => (await client.query(text, params)).rows,
    close: () => client.end(),
  }
}

/** The server keeps PGlite's files in DATA_DIR/pglite (src/db/migrate-cli.ts). */
export async function openPglite(dataDir: string): Promise<SqlSession> {
  const db = await PGlite.create({ dataDir: path.join(dataDir, 'pglite'), relaxedDurability: true })
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
    query: async <R = Record<string, any>>(text: string, params?: unknown[]) => (await db.query<R>(text, params)).rows,
    close: () => db.close(),
  }
}
