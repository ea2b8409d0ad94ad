/** Messages between the event loop (pglite-thread.ts) and the embedded database's thread (pglite-worker.ts). */

export interface WorkerOptions {
  /** Unset: in memory. */
  dataDir?: string
  /** A data-dir tarball to start from (tests reuse one initdb). */
  template?: ArrayBuffer
  /** How long a statement may wait behind an open transaction (tests shorten it). */
  lockTimeoutMs?: number
}

/**
 * `turn`: 0 for a statement on its own; a transaction's number for its statements, which hold
 * the session until `end`.
 */
export type ThreadRequest =
  | { op: 'query'; id: number; turn: number; sql: string; params: readonly unknown[] }
  | { op: 'end'; turn: number }
  | { op: 'close'; id: number }

/**
 * id 0 answers start-up. `rows` is the v8 serialization of the result rows, read back by the
 * caller: a row that cannot be read there (a JSON value nested past the event loop's stack)
 * then fails its own statement. Cloned as part of the message, it would be dropped unread
 * ('messageerror', which names no statement) and its statement left unanswered for good.
 */
export type ThreadReply =
  | { id: number; rows: Uint8Array; affectedRows?: number }
  | { id: number; error: Record<string, unknown> & { message: string } }

// int8 (counts, sums) as JS numbers on both engines; values here stay far below 2^53.
export const INT8_OID = 20

export const LOCK_TIMEOUT_MS = 20_000
export const LOCK_TIMEOUT_MESSAGE =
  'PGlite connection wait timed out (a query outside an open transaction in the same flow?)'
