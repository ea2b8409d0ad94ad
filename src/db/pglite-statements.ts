import { parse, protocol, type PGlite } from '@electric-sql/pglite'
import { concatBytes } from '../crypto/encoding.js'
import { nestingPastLimit } from '../json-limits.js'
import { isStalePlan } from './pg-errors.js'

const { serialize } = protocol
const decoder = new TextDecoder()
const encoder = new TextEncoder()

const JSON_OIDS: ReadonlySet<number> = new Set([114, 3802])
/**
 * PostgreSQL fails a json or jsonb value nested past its stack with 54001 and carries on. PGlite,
 * the same parser in WebAssembly, may answer with no rows and no error and be left broken (the
 * next COMMIT fails with "bad buffer ID", or a later statement never returns). So a JSON parameter
 * that deep is refused here with PostgreSQL's error: far above what the service stores
 * (json-limits.ts), far below where PGlite's parser gives out.
 */
export const PGLITE_JSON_MAX_DEPTH = 1_000

function assertParsableJson(text: string): void {
  // Each level takes two characters: shorter text cannot be that deep.
  if (text.length > 2 * PGLITE_JSON_MAX_DEPTH && nestingPastLimit(text, PGLITE_JSON_MAX_DEPTH)) {
    throw Object.assign(
      new Error(`stack depth limit exceeded: a JSON parameter nests deeper than ${PGLITE_JSON_MAX_DEPTH} levels`),
      { code: '54001', severity: 'ERROR' },
    )
  }
}

interface Column {
  name: string
  dataTypeID: number
  parse?: (text: string, dataTypeID: number) => unknown
}

interface Prepared {
  name: string
  /** The parameter types PostgreSQL inferred: each value is serialized for its type, as PGlite's query() does. */
  paramTypes: number[]
  /** The row shape described at prepare time (none for statements that return no rows). */
  columns: Column[]
}

export interface StatementResult {
  rows: Record<string, unknown>[]
  affectedRows: number
}

/**
 * Runs each statement text as a named prepared statement, parsed and described once (like
 * prepared-statements.ts for node-postgres). PGlite's own query() parses, plans and describes
 * every statement on every call, in six calls into WebAssembly; here a statement seen before is
 * one call (bind, execute, sync); the gain per statement is in docs/decisions.md, "Database".
 * The answer is read straight from the protocol bytes with the row shape described at prepare
 * time, instead of PGlite turning every message into an object first (a large share of this
 * thread's time under verification load, a row description per execution included).
 * The least recently used statements are closed beyond `max`.
 */
export class PGliteStatements {
  private readonly prepared = new Map<string, Prepared>()
  private nextName = 1

  constructor(
    private readonly pglite: PGlite,
    private readonly max = 500,
  ) {}

  /**
   * Outside a transaction a statement refused for a stale plan ran nothing, so it is prepared
   * afresh and run again at once, as prepared-statements.ts does for node-postgres; inside one, the
   * transaction has failed and the error stands.
   */
  async query(sql: string, params: readonly unknown[]): Promise<StatementResult> {
    try {
      return await this.run(sql, params)
    } catch (error) {
      if (!isStalePlan(error) || this.pglite.isInTransaction()) throw error
      return this.run(sql, params)
    }
  }

  private async run(sql: string, params: readonly unknown[]): Promise<StatementResult> {
    const statement = this.prepared.get(sql) ?? (await this.prepare(sql))
    // Most recently used last: Map keeps insertion order.
    this.prepared.delete(sql)
    this.prepared.set(sql, statement)
    // PGlite's serializers all give text (bytea as \x hex), so every value is bound as text.
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null
      const type = statement.paramTypes[i]!
      const serializer = this.pglite.serializers[type]
      const text = serializer ? String(serializer(value)) : String(value)
      if (JSON_OIDS.has(type)) assertParsableJson(text)
      return text
    })
    const chunks: Uint8Array[] = []
    await this.pglite.execProtocolRawStream(bindExecuteSync(statement.name, values), {
      // A view into WebAssembly memory, reused by the next write: copied.
      onRawData: (chunk) => chunks.push(chunk.slice()),
    })
    try {
      return readResult(chunks.length === 1 ? chunks[0]! : concatBytes(chunks), statement.columns)
    } catch (error) {
      // The statement's tables changed shape since it was prepared (DDL): PostgreSQL refuses to
      // run it with the old row shape; forgotten, the next call prepares it afresh.
      if (isStalePlan(error) && this.prepared.get(sql) === statement) {
        // Its own failure (say, inside an aborted transaction) must not hide the one above.
        await this.forget(sql, statement).catch(() => undefined)
      }
      throw error
    }
  }

  private async prepare(sql: string): Promise<Prepared> {
    const name = `s${this.nextName++}`
    const { messages } = await this.pglite.execProtocol(
      concatBytes([
        serialize.parse({ name, text: sql, types: [] }),
        serialize.describe({ type: 'S', name }),
        serialize.sync(),
      ]),
    )
    const described = messages.find((m) => m.name === 'rowDescription') as
      | { fields: Array<{ name: string; dataTypeID: number }> }
      | undefined
    const columns = (described?.fields ?? []).map(({ name, dataTypeID }) => ({
      name,
      dataTypeID,
      parse: this.pglite.parsers[dataTypeID],
    }))
    const statement = { name, paramTypes: parse.parseDescribeStatementResults(messages), columns }
    if (this.prepared.size >= this.max) await this.evictOldest()
    this.prepared.set(sql, statement)
    return statement
  }

  private async evictOldest(): Promise<void> {
    const [sql, oldest] = this.prepared.entries().next().value as [string, Prepared]
    await this.forget(sql, oldest)
  }

  private async forget(sql: string, statement: Prepared): Promise<void> {
    this.prepared.delete(sql)
    await this.pglite.execProtocol(
      concatBytes([serialize.close({ type: 'S', name: statement.name }), serialize.sync()]),
    )
  }
}

let out = new Uint8Array(16 * 1024)
let outView = new DataView(out.buffer)

function reserve(at: number, bytes: number): void {
  if (at + bytes <= out.length) return
  const grown = new Uint8Array(Math.max(out.length * 2, at + bytes))
  grown.set(out.subarray(0, at))
  out = grown
  outView = new DataView(out.buffer)
}

/** A UTF-8 string where `at` points, behind its int32 length when `sized`, else NUL-terminated. */
function writeString(at: number, text: string, sized: boolean): number {
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  reserve(at, 5 + text.length * 3)
  const start = sized ? at + 4 : at
  const { written } = encoder.encodeInto(text, out.subarray(start))
  if (sized) outView.setInt32(at, written)
  else out[start + written] = 0
  return start + written + (sized ? 0 : 1)
}

/**
 * Bind (text parameters and results), Execute (all rows) and Sync for a prepared statement, in one buffer
 * (PostgreSQL protocol §55.7). Written here rather than by PGlite's serializer, which builds
 * each message through two intermediate writers and measures every string's UTF-8 length
 * in JS first (a tenth of this thread's time under verification load).
 */
function bindExecuteSync(statement: string, values: Array<string | null>): Uint8Array {
  let at = 0
  reserve(at, 7 + values.length * 2)
  out[at] = 0x42 // 'B', its length written last
  at += 5
  out[at++] = 0 // unnamed portal
  at = writeString(at, statement, false)
  reserve(at, 4 + values.length * 2)
  outView.setInt16(at, values.length)
  at += 2
  for (let i = 0; i < values.length; i++) {
    outView.setInt16(at, 0) // text
    at += 2
  }
  outView.setInt16(at, values.length)
  at += 2
  for (const value of values) {
    if (value === null) {
      reserve(at, 4)
      outView.setInt32(at, -1)
      at += 4
    } else {
      at = writeString(at, value, true)
    }
  }
  reserve(at, 2 + EXECUTE_SYNC.length)
  outView.setInt16(at, 0) // every result column as text
  at += 2
  outView.setInt32(1, at - 1)
  out.set(EXECUTE_SYNC, at)
  at += EXECUTE_SYNC.length
  return out.slice(0, at)
}

/** Execute of the unnamed portal with no row limit ('E', length 9), then Sync ('S', length 4). */
const EXECUTE_SYNC = Uint8Array.of(0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4)

const DATA_ROW = 0x44 // 'D'
const COMMAND_COMPLETE = 0x43 // 'C'
const ERROR_RESPONSE = 0x45 // 'E'

/**
 * The backend messages of one bind/execute/sync (PostgreSQL protocol §55.7: a type byte, an
 * int32 length that counts itself, the body). Rows and the affected count are read here; an
 * error is handed to PGlite's own parser so it arrives exactly as from PGlite's query(), with its
 * SQLSTATE fields. Bind/ReadyForQuery/notices carry nothing a caller uses.
 */
function readResult(data: Uint8Array, columns: Column[]): StatementResult {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  const rows: Record<string, unknown>[] = []
  let affectedRows = 0
  for (let at = 0; at < data.length; ) {
    const type = data[at]!
    const end = at + 1 + view.getInt32(at + 1)
    if (type === DATA_ROW) rows.push(readRow(data, view, at + 5, columns))
    else if (type === COMMAND_COMPLETE) affectedRows += affectedBy(decoder.decode(data.subarray(at + 5, end - 1)))
    else if (type === ERROR_RESPONSE) throw databaseError(data)
    at = end
  }
  return { rows, affectedRows }
}

function readRow(data: Uint8Array, view: DataView, at: number, columns: Column[]): Record<string, unknown> {
  const row: Record<string, unknown> = {}
  const count = view.getInt16(at)
  at += 2
  for (let i = 0; i < count; i++) {
    const length = view.getInt32(at)
    at += 4
    const column = columns[i]!
    if (length === -1) {
      row[column.name] = null
      continue
    }
    const text = decoder.decode(data.subarray(at, at + length))
    at += length
    row[column.name] = column.parse ? column.parse(text, column.dataTypeID) : text
  }
  return row
}

/** The count PGlite's query() reports as affectedRows: INSERT 0 n, UPDATE n, DELETE n, COPY n, MERGE n. */
function affectedBy(tag: string): number {
  const words = tag.split(' ')
  if (!['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE'].includes(words[0]!)) return 0
  const count = Number.parseInt(words.at(-1)!, 10)
  return Number.isNaN(count) ? 0 : count
}

function databaseError(data: Uint8Array): Error {
  let error: Error | undefined
  new protocol.Parser().parse(data, (message) => {
    if (message.name === 'error' && !error) error = message as unknown as Error
  })
  return error ?? new Error('PGlite answered with an error it could not describe')
}
