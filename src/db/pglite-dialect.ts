import type { PGlite } from '@electric-sql/pglite'
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely'

/**
 * Kysely dialect for embedded PGlite. Written here because kysely-pglite 0.6 breaks on current
 * Kysely (DESIGN.md pitfalls). PGlite is one connection, so a FIFO lock hands it to one
 * Kysely connection at a time; a transaction holds the lock from BEGIN to COMMIT/ROLLBACK.
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly pglite: PGlite) {}

  createAdapter(): DialectAdapter {
    return new PostgresAdapter()
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite)
  }
  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler()
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db)
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pglite.query<R>(query.sql, query.parameters as unknown[])
    return {
      rows: result.rows,
      numAffectedRows: result.affectedRows === undefined ? undefined : BigInt(result.affectedRows),
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite dialect does not stream')
  }
}

// A query that waits this long is almost surely a query on the database made while the same
// code holds an open transaction: with one connection it would wait forever. Fail loudly.
const LOCK_TIMEOUT_MS = 20_000
const LOCK_TIMEOUT_MESSAGE = 'PGlite connection wait timed out (a query outside an open transaction in the same flow?)'

class PGliteDriver implements Driver {
  private tail: Promise<void> = Promise.resolve()
  private readonly releases = new WeakMap<DatabaseConnection, () => void>()

  constructor(private readonly pglite: PGlite) {}

  async init(): Promise<void> {
    await this.pglite.waitReady
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    let release!: () => void
    const next = new Promise<void>((resolve) => (release = resolve))
    const previous = this.tail
    this.tail = previous.then(() => next)
    let timer: NodeJS.Timeout | undefined
    try {
      await Promise.race([
        previous,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(LOCK_TIMEOUT_MESSAGE)), LOCK_TIMEOUT_MS)
        }),
      ])
    } catch (error) {
      release() // let the queue move on past this abandoned turn
      throw error
    } finally {
      clearTimeout(timer)
    }
    // One physical connection: each acquisition gets a fresh wrapper so its release is its own.
    const conn = new PGliteConnection(this.pglite)
    this.releases.set(conn, release)
    return conn
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const parts = ['begin']
    if (settings.isolationLevel) parts.push(`isolation level ${settings.isolationLevel}`)
    if (settings.accessMode) parts.push(settings.accessMode)
    await conn.executeQuery(CompiledQuery.raw(parts.join(' ')))
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'))
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('rollback'))
  }

  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    this.releases.get(conn)?.()
    this.releases.delete(conn)
  }

  async destroy(): Promise<void> {
    await this.tail
    if (!this.pglite.closed) await this.pglite.close()
  }
}
