/**
 * What a stored credential costs (issue 26, scope 3): bytes per credential by table (heap,
 * TOAST, indexes) and by index, the average stored width of each column of `credentials` and of
 * the sealed envelope in `content_blocks`, the database's size and, on PGlite, how much of the
 * data directory is write-ahead log.
 */
import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import type { SqlSession } from './sql-session.js'

export interface TableCost {
  table: string
  rows: number
  /** Bytes per credential: heap (main fork), TOAST (with its index), all indexes, total. */
  heap: number
  toast: number
  indexes: number
  total: number
}

export interface StorageReport {
  credentials: number
  databaseBytes: number
  bytesPerCredential: number
  /** PGlite only: the data directory and its pg_wal. */
  dataDirBytes?: number
  walBytes?: number
  tables: TableCost[]
  /** Bytes per credential of each index of the tables above. */
  indexes: { index: string; table: string; perCredential: number }[]
  /** Average stored bytes per row (pg_column_size: after compression, TOAST pointers count 18). */
  credentialColumns: Record<string, number>
  /** Average stored bytes per content block (the sealed envelope). */
  contentBlockBytes: number
}

/** Rows sampled for column widths: enough for a stable average, cheap at a million rows. */
const COLUMN_SAMPLE = 5000

export async function storageReport(sql: SqlSession, issuerDid: string, dataDir?: string): Promise<StorageReport> {
  const [{ n: credentials } = { n: 0 }] = await sql.query<{ n: number }>(
    'select count(*)::int as n from credentials where issuer_did = $1',
    [issuerDid],
  )
  const per = (bytes: number | string) => Math.round((Number(bytes) / Math.max(credentials, 1)) * 10) / 10
  const [{ size } = { size: '0' }] = await sql.query<{ size: string }>(
    'select pg_database_size(current_database())::text as size',
  )
  const tables = await sql.query<{
    relname: string
    rows: string
    heap: string
    toast: string
    indexes: string
    total: string
  }>(
    `select c.relname,
       c.reltuples::bigint::text as rows,
       pg_relation_size(c.oid)::text as heap,
       coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0)::text as toast,
       pg_indexes_size(c.oid)::text as indexes,
       pg_total_relation_size(c.oid)::text as total
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = current_schema() and c.relkind = 'r'
     order by pg_total_relation_size(c.oid) desc`,
  )
  const indexes = await sql.query<{ index: string; table: string; bytes: string }>(
    `select i.relname as index, t.relname as table, pg_relation_size(i.oid)::text as bytes
     from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid join pg_namespace n on n.oid = t.relnamespace
     where n.nspname = current_schema() order by pg_relation_size(i.oid) desc`,
  )
  const columns = (
    await sql.query<{ column_name: string }>(
      `select column_name from information_schema.columns where table_schema = current_schema() and table_name = 'credentials' order by ordinal_position`,
    )
  ).map((r) => r.column_name)
  const widths = await sql.query<Record<string, string>>(
    `select ${columns.map((c) => `coalesce(avg(pg_column_size("${c}")), 0)::float8 as "${c}"`).join(', ')} from (select * from credentials order by id limit ${COLUMN_SAMPLE}) s`,
  )
  const [{ bytes: blockBytes } = { bytes: 0 }] = await sql.query<{ bytes: number }>(
    `select coalesce(avg(pg_column_size(data)), 0)::float8 as bytes from (select data from content_blocks limit ${COLUMN_SAMPLE}) s`,
  )
  const report: StorageReport = {
    credentials,
    databaseBytes: Number(size),
    bytesPerCredential: per(size),
    tables: tables
      .filter((t) => Number(t.total) > 64 * 1024)
      .map((t) => ({
        table: t.relname,
        rows: Number(t.rows),
        heap: per(t.heap),
        toast: per(t.toast),
        indexes: per(t.indexes),
        total: per(t.total),
      })),
    indexes: indexes
      .filter((i) => Number(i.bytes) > 64 * 1024)
      .map((i) => ({ index: i.index, table: i.table, perCredential: per(i.bytes) })),
    credentialColumns: Object.fromEntries(Object.entries(widths[0] ?? {}).map(([k, v]) => [k, Math.round(Number(v))])),
    contentBlockBytes: Math.round(Number(blockBytes)),
  }
  if (dataDir) {
    report.dataDirBytes = await directoryBytes(dataDir)
    report.walBytes = await directoryBytes(path.join(dataDir, 'pglite', 'pg_wal'))
  }
  return report
}

export async function directoryBytes(dir: string): Promise<number> {
  let total = 0
  let entries
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) total += await directoryBytes(full)
    else if (entry.isFile()) total += (await stat(full)).size
  }
  return total
}
