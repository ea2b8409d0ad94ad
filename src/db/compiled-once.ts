import { CompiledQuery, type Compilable } from 'kysely'
import type { Database, Executor } from './database.js'

const PLACEHOLDER = Symbol('compiled-once parameter')
type Placeholder = { readonly [PLACEHOLDER]: string }
const isPlaceholder = (value: unknown): value is Placeholder =>
  typeof value === 'object' && value !== null && PLACEHOLDER in value

/**
 * A query of fixed shape, built with Kysely's query builder once and compiled once; every call
 * then only fills in its parameters. Building and compiling a query costs the event loop several
 * times what the driver spends sending it, so the hot paths (verification, approval, revocation)
 * use this.
 *
 * `build` receives stand-ins for the parameters (`p.id` and so on): use each only as a value the
 * builder sends as a parameter (where, set, values, limit), never inspect or transform it there
 * (`JSON.stringify(p.x)` would stringify the stand-in: pass the string in instead), and nothing
 * may change the query's shape (an `in` list, an optional filter). Values written into the
 * builder itself are kept as they are. The SQL is compiled by the first caller's dialect, which
 * is the same for every caller: both engines (PGlite, node-postgres) speak PostgreSQL.
 */
export function compiledOnce<P extends Record<string, unknown>, O>(
  build: (db: Database, p: P) => Compilable<O>,
): (db: Executor, params: P) => Promise<O[]> {
  let compiled: { sql: string; parameters: Array<{ key: keyof P } | { value: unknown }> } | undefined
  return async (db, params) => {
    if (!compiled) {
      const standIns = new Proxy({} as P, { get: (_target, key) => ({ [PLACEHOLDER]: String(key) }) })
      const query = build(db as Database, standIns).compile()
      compiled = {
        sql: query.sql,
        parameters: query.parameters.map((value) =>
          isPlaceholder(value) ? { key: value[PLACEHOLDER] as keyof P } : { value },
        ),
      }
    }
    const values = compiled.parameters.map((parameter) =>
      'key' in parameter ? params[parameter.key] : parameter.value,
    )
    const result = await db.executeQuery<O>(CompiledQuery.raw(compiled.sql, values) as CompiledQuery<O>)
    return result.rows
  }
}
