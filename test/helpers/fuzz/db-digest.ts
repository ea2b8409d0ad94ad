import { sql, type Kysely } from 'kysely'
import type { DB } from '../../../src/db/database.js'

/**
 * A fingerprint of every application table: row count and an md5 over the rows' text form in a
 * stable order, one query for all tables (the same SQL on PGlite and PostgreSQL). Comparing two
 * fingerprints names the tables that changed.
 */
export async function tableDigests(db: Kysely<DB>, exclude: ReadonlySet<string>): Promise<Map<string, string>> {
  const { rows: tables } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'
    order by table_name`.execute(db)
  const names = tables.map((t) => t.table_name).filter((name) => !exclude.has(name))
  if (!names.length) return new Map()
  const parts = names.map(
    (name) =>
      sql`select ${name}::text as name, count(*)::int as n, coalesce(md5(string_agg(x::text, '|' order by x::text)), '') as h from ${sql.table(name)} x`,
  )
  const { rows } = await sql<{ name: string; n: number; h: string }>`${sql.join(parts, sql` union all `)}`.execute(db)
  return new Map(rows.map((r) => [r.name, `${r.n} rows, md5 ${r.h}`]))
}

/** The tables whose fingerprint differs, with before -> after. */
export function changedTables(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()])
  return [...names]
    .filter((n) => before.get(n) !== after.get(n))
    .map((n) => `${n}: ${before.get(n) ?? '(absent)'} -> ${after.get(n) ?? '(absent)'}`)
}
