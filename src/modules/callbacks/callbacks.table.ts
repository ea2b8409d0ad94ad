import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string, string>

/** pending → delivered (a 2xx answer) | dead (attempts exhausted, or a permanent refusal). */
export type CallbackStatus = 'pending' | 'delivered' | 'dead'

/** The durable outbox of signed callbacks (DESIGN.md principle 5). One row per event. */
export interface CallbackOutboxTable {
  id: Generated<number>
  /** What receivers deduplicate on; the body's `id` and the `X-Event-Id` header. */
  event_id: string
  event_type: string
  url: string
  /** The event's `data`; the body is rebuilt from the columns in RFC 8785 form on every attempt. */
  payload: Json<Record<string, unknown>>
  status: ColumnType<CallbackStatus, CallbackStatus | undefined, CallbackStatus>
  /** Attempts started (counted when claimed, so a crash mid-send still counts). */
  attempts: ColumnType<number, number | undefined, number>
  next_attempt_at: Timestamp
  /** Lease of the instance that claimed the row; an expired lease makes it claimable again. */
  locked_until: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** Short reason of the last failure: an HTTP status or a transport error, never a body or URL path. */
  last_error: ColumnType<string | null, string | null | undefined, string | null>
  last_status: ColumnType<number | null, number | null | undefined, number | null>
  last_attempt_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  created_at: Timestamp
  delivered_at: ColumnType<Date | null, Date | null | undefined, Date | null>
}

// Joins the one DB interface (declaration merging) so Kysely types the table.
declare module '../../db/database.js' {
  interface DB {
    callback_outbox: CallbackOutboxTable
  }
}
