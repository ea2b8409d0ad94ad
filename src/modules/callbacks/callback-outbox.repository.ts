import { sql } from 'kysely'
import type { Database, Executor } from '../../db/database.js'
import type { CallbackStatus } from './callbacks.table.js'

/** SQL of the callback outbox. Every timestamp is a parameter from the injected clock. */

export interface NewCallbackRow {
  event_id: string
  event_type: string
  url: string
  /** JSON text of the event's data. */
  payload: string
  created_at: Date
}

export interface ClaimedCallback {
  id: number
  event_id: string
  event_type: string
  url: string
  payload: Record<string, unknown>
  /** Including the attempt this claim starts. */
  attempts: number
  created_at: Date
}

export interface CallbackDelivery {
  event_id: string
  event_type: string
  status: CallbackStatus
  attempts: number
  last_error: string | null
  last_status: number | null
  last_attempt_at: Date | null
  next_attempt_at: Date
  created_at: Date
  delivered_at: Date | null
}

export async function insertEvent(db: Executor, row: NewCallbackRow): Promise<void> {
  await db
    .insertInto('callback_outbox')
    .values({ ...row, status: 'pending', attempts: 0, next_attempt_at: row.created_at })
    .execute()
}

/**
 * Claims up to `limit` due rows for this instance until `leaseUntil`, counting the attempt.
 * One statement, hence one short transaction: the CTE locks the rows it picks with
 * FOR UPDATE SKIP LOCKED, so concurrent claimers on other instances pick disjoint rows instead
 * of waiting; a row another claimer committed meanwhile is re-checked by PostgreSQL against
 * the WHERE clause (READ COMMITTED re-evaluation), and its fresh lease excludes it.
 * MATERIALIZED keeps the locking subquery evaluated once.
 */
export async function claimDue(
  db: Database,
  at: { now: Date; leaseUntil: Date; limit: number },
): Promise<ClaimedCallback[]> {
  const result = await sql<ClaimedCallback>`
    with due as materialized (
      select id from callback_outbox
      where status = 'pending' and next_attempt_at <= ${at.now}
        and (locked_until is null or locked_until <= ${at.now})
      order by next_attempt_at
      limit ${at.limit}
      for update skip locked
    )
    update callback_outbox o
    set locked_until = ${at.leaseUntil}, attempts = o.attempts + 1, last_attempt_at = ${at.now}
    from due
    where o.id = due.id
    returning o.id, o.event_id, o.event_type, o.url, o.payload, o.attempts, o.created_at`.execute(db)
  return result.rows.map((row) => ({
    ...row,
    id: Number(row.id),
    payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
    created_at: new Date(row.created_at),
  }))
}

/** Delivered is final whoever holds the lease now: a late success still counts. */
export async function markDelivered(db: Database, id: number, at: Date, httpStatus: number): Promise<void> {
  await db
    .updateTable('callback_outbox')
    .set({ status: 'delivered', delivered_at: at, locked_until: null, last_status: httpStatus, last_error: null })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute()
}

/**
 * Records a failed attempt: retry at `retryAt`, or dead when `retryAt` is undefined. Fenced by
 * the attempt count of the claim, so an instance whose lease expired (and whose row another
 * instance claimed since) does not overwrite the newer attempt's state.
 */
export async function markFailed(
  db: Database,
  claim: { id: number; attempts: number },
  outcome: { error: string; httpStatus: number | null; retryAt: Date | undefined },
): Promise<void> {
  await db
    .updateTable('callback_outbox')
    .set({
      status: outcome.retryAt ? 'pending' : 'dead',
      next_attempt_at: outcome.retryAt ?? sql<Date>`next_attempt_at`,
      locked_until: null,
      last_error: outcome.error,
      last_status: outcome.httpStatus,
    })
    .where('id', '=', claim.id)
    .where('attempts', '=', claim.attempts)
    .where('status', '=', 'pending')
    .execute()
}

export async function findByEventId(db: Executor, eventId: string): Promise<CallbackDelivery | undefined> {
  const row = await db
    .selectFrom('callback_outbox')
    .select([
      'event_id',
      'event_type',
      'status',
      'attempts',
      'last_error',
      'last_status',
      'last_attempt_at',
      'next_attempt_at',
      'created_at',
      'delivered_at',
    ])
    .where('event_id', '=', eventId)
    .executeTakeFirst()
  if (!row) return undefined
  const date = (d: Date | string | null) => (d === null ? null : new Date(d))
  return {
    ...row,
    last_attempt_at: date(row.last_attempt_at),
    next_attempt_at: new Date(row.next_attempt_at),
    created_at: new Date(row.created_at),
    delivered_at: date(row.delivered_at),
  }
}

/** Deletes delivered and dead rows created before `before`; returns how many. */
export async function purgeFinishedBefore(db: Database, before: Date, limit = 1000): Promise<number> {
  const result = await sql<{ n: number }>`
    with gone as (
      delete from callback_outbox
      where id in (select id from callback_outbox where status <> 'pending' and created_at < ${before} limit ${limit})
      returning 1
    )
    select count(*)::int as n from gone`.execute(db)
  return result.rows[0]?.n ?? 0
}
