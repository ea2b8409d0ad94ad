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
import type { PGliteThread } from './pglite-thread.js'

/**
 * Kysely dialect for embedded PGlite on its own thread (pglite-thread.ts). Written here because
 * kysely-pglite 0.6 breaks on current Kysely (DESIGN.md pitfalls). PGlite is one session: a
 * statement outside a transaction is sent at once and runs in turn; a transaction gets a turn
 * number at BEGIN, and the thread runs nothing else until the transaction's connection is released.
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly thread: PGliteThread) {}

  createAdapter(): DialectAdapter {
    return new PostgresAdapter()
  }
  createDriver(): Driver {
    return new PGliteDriver(this.thread)
  }
  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler()
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db)
  }
}

class PGliteConnection implements DatabaseConnection {
  /** 0 outside a transaction. */
  turn = 0

  constructor(private readonly thread: PGliteThread) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.thread.query(query.sql, query.parameters, this.turn)
    return {
      rows: result.rows as R[],
      numAffectedRows: result.affectedRows === undefined ? undefined : BigInt(result.affectedRows),
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite dialect does not stream')
  }
}

class PGliteDriver implements Driver {
  constructor(private readonly thread: PGliteThread) {}

  async init(): Promise<void> {
    await this.thread.ready
  }

  // Each acquisition gets a fresh wrapper: its turn, if it opens a transaction, is its own.
  async acquireConnection(): Promise<DatabaseConnection> {
    return new PGliteConnection(this.thread)
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    ;(conn as PGliteConnection).turn = this.thread.newTurn()
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
    const connection = conn as PGliteConnection
    if (connection.turn !== 0) this.thread.endTurn(connection.turn)
    connection.turn = 0
  }

  async destroy(): Promise<void> {
    await this.thread.close()
  }
}
