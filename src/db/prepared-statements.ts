import { createHash } from 'node:crypto'
import pg from 'pg'
import { isStalePlan } from './pg-errors.js'

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
 * After its tables changed shape (PostgreSQL: 0A000 "cached plan must not change result type"),
 * a text gets a new name, so every connection prepares it afresh, instead of each failing on it
 * until it closes. Only the first report of the old name renames.
 */
function renamePrepared(text: string, stale: string): string {
  const current = names.get(text)
  if (current !== stale) return current ?? stale
  const generation = Number(/_(\d+)$/.exec(stale)?.[1] ?? 1) + 1
  const renamed = `${stale.replace(/_\d+$/, '')}_${generation}`
  names.set(text, renamed)
  return renamed
}

/**
 * A node-postgres client that runs every parameterised statement as a named prepared statement.
 * PostgreSQL then parses and analyses each text once per connection instead of on every call,
 * and node-postgres skips sending the Parse message (`connection.parsedStatements`): less work
 * on both sides of every round trip. Statements without parameters (BEGIN, COMMIT, the
 * migrations' multi-statement scripts) keep the simple protocol, which a prepared statement
 * could not carry. Kysely's PostgresDriver calls `query(text, values)`, the only form renamed.
 *
 * A prepared `select *` fixes its result columns. When another instance migrates the shared
 * database (a rolling deploy adding a column), PostgreSQL refuses the old plan; the statement is
 * then prepared again under a new name and, outside a transaction (where the refused statement
 * ran nothing), run again at once. Inside one, the transaction has failed and the error stands.
 */
export class PreparingClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [text, values] = args
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      const name = preparedName(text)
      if (name) return this.runPrepared(text, values, name) as never
    }
    return (super.query as (...a: unknown[]) => never)(...args)
  }

  private async runPrepared(text: string, values: unknown[], name: string): Promise<pg.QueryResult> {
    const run = (as: string) =>
      (pg.Client.prototype.query as (config: pg.QueryConfig) => Promise<pg.QueryResult>).call(this, {
        name: as,
        text,
        values,
      })
    try {
      return await run(name)
    } catch (error) {
      if (!isStalePlan(error)) throw error
      const renamed = renamePrepared(text, name)
      if (this.getTransactionStatus() !== 'I') throw error
      return run(renamed)
    }
  }
}
