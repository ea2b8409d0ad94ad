import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely'
import { ValidationError } from '../errors.js'

/**
 * SQLSTATEs (PostgreSQL Appendix A, class 22 "data exception") with which the database refuses a
 * value a client sent rather than the SQL itself. JSON Schema accepts these strings, PostgreSQL
 * cannot store them:
 * - 22021 character_not_in_repertoire: U+0000 in text ("invalid byte sequence for encoding UTF8: 0x00");
 * - 22P05 untranslatable_character: a `\u0000` escape in jsonb;
 * - 22P02 invalid_text_representation: jsonb with an unpaired UTF-16 surrogate escape (JSON.stringify
 *   writes `"\ud800"`), or a client's text cast to a number.
 */
const CLIENT_DATA_STATES: ReadonlyMap<string, string> = new Map([
  ['22021', 'Text must not contain the NUL character (U+0000)'],
  ['22P05', 'Text must not contain the NUL character (U+0000)'],
  ['22P02', 'A value cannot be stored: text with unpaired surrogate characters, or not of the expected form'],
])

/** The driver error as a ValidationError (400) when it is about the data sent; anything else unchanged. */
function translateDriverError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code
  const message = typeof code === 'string' ? CLIENT_DATA_STATES.get(code) : undefined
  return message ? new ValidationError(message, { cause: error }) : error
}

/**
 * Wraps a dialect so every statement's driver error passes `translateDriverError` (STYLE.md:
 * driver errors are translated in the storage layer), for PGlite and node-postgres alike.
 * A transaction that fails this way is rolled back by Kysely as usual.
 */
export class UnstorableInputDialect implements Dialect {
  constructor(private readonly inner: Dialect) {}
  createAdapter(): DialectAdapter {
    return this.inner.createAdapter()
  }
  createDriver(): Driver {
    return new TranslatingDriver(this.inner.createDriver())
  }
  createQueryCompiler(): QueryCompiler {
    return this.inner.createQueryCompiler()
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return this.inner.createIntrospector(db)
  }
}

class TranslatingConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(query)
    } catch (error) {
      throw translateDriverError(error)
    }
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize)
  }
}

/** The driver gets back its own connections: only the one Kysely runs statements on is wrapped. */
const unwrap = (connection: DatabaseConnection): DatabaseConnection =>
  connection instanceof TranslatingConnection ? connection.inner : connection

class TranslatingDriver implements Driver {
  constructor(private readonly inner: Driver) {}
  init(): Promise<void> {
    return this.inner.init()
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new TranslatingConnection(await this.inner.acquireConnection())
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(unwrap(connection), settings)
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(unwrap(connection))
  }
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(unwrap(connection))
  }
  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    if (!this.inner.savepoint) throw new Error('savepoints are not supported by this driver')
    return this.inner.savepoint(unwrap(connection), name, compile)
  }
  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    if (!this.inner.rollbackToSavepoint) throw new Error('savepoints are not supported by this driver')
    return this.inner.rollbackToSavepoint(unwrap(connection), name, compile)
  }
  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    if (!this.inner.releaseSavepoint) throw new Error('savepoints are not supported by this driver')
    return this.inner.releaseSavepoint(unwrap(connection), name, compile)
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(unwrap(connection))
  }
  destroy(): Promise<void> {
    return this.inner.destroy()
  }
}
