import type { Insertable, Selectable } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { Oid4vpRequestsTable } from './openid4vp.table.js'

export type Oid4vpRequestRow = Selectable<Oid4vpRequestsTable>

export async function insertOid4vpRequest(db: Executor, row: Omit<Insertable<Oid4vpRequestsTable>, 'request_payload'> & { request_payload: Record<string, unknown> }): Promise<Oid4vpRequestRow> {
  return db.insertInto('oid4vp_requests').values({ ...row, request_payload: JSON.stringify(row.request_payload) }).returningAll().executeTakeFirstOrThrow()
}

export function findOid4vpRequest(db: Executor, requestId: string): Promise<Oid4vpRequestRow | undefined> {
  return db.selectFrom('oid4vp_requests').selectAll().where('request_id', '=', requestId).executeTakeFirst()
}

/** The wallet's answer, recorded once: false when one was already recorded (a replay). */
export async function recordAnswer(db: Executor, requestId: string, answer: { answer: 'accepted' | 'refused'; presentation_id: string; at: Date }): Promise<boolean> {
  const updated = await db
    .updateTable('oid4vp_requests')
    .set({ answer: answer.answer, presentation_id: answer.presentation_id, answered_at: answer.at })
    .where('request_id', '=', requestId)
    .where('answer', 'is', null)
    .returning('request_id')
    .executeTakeFirst()
  return updated !== undefined
}

/** The verdict once the consent check had its say (it can only turn an accepted answer into a refused one). */
export async function refuseAnswer(db: Executor, requestId: string): Promise<void> {
  await db.updateTable('oid4vp_requests').set({ answer: 'refused' }).where('request_id', '=', requestId).execute()
}
