import { createHash } from 'node:crypto'
import pg from 'pg'

/**
 * Distinct statement texts that get a server-side prepared statement. The service's queries are
 * a fixed set (a few hundred); texts that vary with their input (multi-row inserts of a batch,
 * `in (...)` lists) can add more, and past this many they run unnamed as before, so neither this
 * process nor a PostgreSQL backend holds an unbounded number of plans.
 */
export const MAX_PREPARED_STATEMENTS = 2000

const names = new Map<string, string>()

/** The statement's name: derived from its text, so every connection and instance agrees on it. */
export function preparedName(text: string): string | undefined {
  let name = names.get(text)
  if (name === undefined && names.size < MAX_PREPARED_STATEMENTS) {
    name = `k${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`
    names.set(text, name)
  }
  return name
}

/**
 * A node-postgres client that runs every parameterised statement as a named prepared statement.
 * PostgreSQL then parses and analyses each text once per connection instead of on every call,
 * and node-postgres skips sending the Parse message (`connection.parsedStatements`): less work
 * on both sides of every round trip. Statements without parameters (BEGIN, COMMIT, the
 * migrations' multi-statement scripts) keep the simple protocol, which a prepared statement
 * could not carry. Kysely's PostgresDriver calls `query(text, values)`, the only form renamed.
 *
 * A prepared `select *` fixes its result columns; the schema changes only in migrations, which
 * run before the service takes requests.
 */
export class PreparingClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [text, values] = args
    if (typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      const name = preparedName(text)
      if (name) return (super.query as (...a: unknown[]) => never)({ name, text, values }, ...args.slice(2))
    }
    return (super.query as (...a: unknown[]) => never)(...args)
  }
}
