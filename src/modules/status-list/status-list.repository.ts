import { sql, type Selectable } from 'kysely'
import { compiledOnce } from '../../db/compiled-once.js'
import type { Executor } from '../../db/database.js'
import type { StatusListsTable } from './status-list.table.js'

export type StatusListRow = Selectable<StatusListsTable>
export type StatusListLayout = Pick<StatusListRow, 'id' | 'size' | 'multiplier' | 'offset'>

/** The issuer's newest list of a purpose, without its bits. */
export function findNewestList(
  db: Executor,
  issuerDid: string,
  purpose: string,
): Promise<StatusListLayout | undefined> {
  return db
    .selectFrom('status_lists')
    .select(['id', 'size', 'multiplier', 'offset'])
    .where('issuer_did', '=', issuerDid)
    .where('purpose', '=', purpose)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
}

export async function insertList(
  db: Executor,
  row: { id: string; issuer_did: string; purpose: string; size: number; multiplier: number; offset: number },
): Promise<void> {
  await db
    .insertInto('status_lists')
    .values({ ...row, bits: new Uint8Array(row.size / 8) })
    .execute()
}

/**
 * Reserves `count` counters of a list in one statement; the row lock is held only for this
 * statement. Undefined when the list has fewer than `count` left.
 */
export async function reserveCounters(db: Executor, listId: string, count: number): Promise<number | undefined> {
  const row = await db
    .updateTable('status_lists')
    .set({ next_counter: sql`next_counter + ${count}` })
    .where('id', '=', listId)
    .where(sql<boolean>`next_counter + ${count} <= size`)
    .returning(sql<number>`next_counter - ${count}`.as('first'))
    .executeTakeFirst()
  return row?.first
}

export function findVersion(
  db: Executor,
  listId: string,
): Promise<{ version: number; issuer_did: string; purpose: string } | undefined> {
  return db
    .selectFrom('status_lists')
    .select(['version', 'issuer_did', 'purpose'])
    .where('id', '=', listId)
    .executeTakeFirst()
}

/** Bits travel as base64 text: PGlite converts bytea byte by byte in JS (see DbBlockRepository). */
/**
 * The one byte of a list that holds bit `index` (MSB-first, as statusBit reads it), without
 * reading the whole list: a verification needs one bit of 16 KB. `byte` is null past the end.
 */
const statusByte = compiledOnce((db, p: { listId: string; byteIndex: number }) =>
  db
    .selectFrom('status_lists')
    .select([
      'issuer_did',
      sql<number | null>`case when ${p.byteIndex} < length(bits) then get_byte(bits, ${p.byteIndex}) end`.as('byte'),
    ])
    .where('id', '=', p.listId),
)

export async function findStatusByte(
  db: Executor,
  listId: string,
  index: number,
): Promise<{ issuer_did: string; byte: number | null } | undefined> {
  return (await statusByte(db, { listId, byteIndex: index >> 3 }))[0]
}

export async function findListBits(
  db: Executor,
  listId: string,
): Promise<{ bits: Uint8Array; version: number; issuer_did: string; purpose: string; updated_at: Date } | undefined> {
  const row = await db
    .selectFrom('status_lists')
    .select(['version', 'issuer_did', 'purpose', 'updated_at', sql<string>`encode(bits, 'base64')`.as('bits')])
    .where('id', '=', listId)
    .executeTakeFirst()
  return row && { ...row, bits: new Uint8Array(Buffer.from(row.bits, 'base64')) }
}
