import { randomBytes } from 'node:crypto'
import pg from 'pg'

export async function postgresReachable(adminUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.query('select 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}

export interface BenchDatabase {
  url: string
  drop(): Promise<void>
}

/** A fresh database `<prefix>_<random>` beside the admin URL's, so runs (and tests) never share state. */
export async function createBenchDatabase(adminUrl: string, prefix = 'bench'): Promise<BenchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  await adminQuery(adminUrl, `create database ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  let dropped = false
  return {
    url: url.toString(),
    drop: async () => {
      if (dropped) return
      dropped = true
      await adminQuery(adminUrl, `drop database if exists ${name} with (force)`)
    },
  }
}

async function adminQuery(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000, statement_timeout: 30_000 })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}
