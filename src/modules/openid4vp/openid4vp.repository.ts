import { sql, type Insertable, type Selectable } from 'kysely'
import type { Executor } from '../../db/database.js'
import { submissionCtes } from '../presentation/presentations.statements.js'
import type { PresentationRow, SubmittedPresentation } from '../presentation/presentations.types.js'
import type { Oid4vpRequestsTable } from './openid4vp.table.js'

export type Oid4vpRequestRow = Selectable<Oid4vpRequestsTable>

export async function insertOid4vpRequest(db: Executor, row: Omit<Insertable<Oid4vpRequestsTable>, 'request_payload'> & { request_payload: Record<string, unknown> }): Promise<Oid4vpRequestRow> {
  return db.insertInto('oid4vp_requests').values({ ...row, request_payload: JSON.stringify(row.request_payload) }).returningAll().executeTakeFirstOrThrow()
}

export function findOid4vpRequest(db: Executor, requestId: string): Promise<Oid4vpRequestRow | undefined> {
  return db.selectFrom('oid4vp_requests').selectAll().where('request_id', '=', requestId).executeTakeFirst()
}

/**
 * The wallet's answer, recorded once, in one statement: the OpenID4VP row is locked and checked
 * unanswered first, then the spec's request is closed from pending, the presentation stored and
 * the answer recorded against it; all or nothing (as presentations.repository.ts `insertApproval`).
 * Undefined when the request was answered already (a replay, or the spec's routes got there first).
 */
export async function insertAnswer(db: Executor, p: SubmittedPresentation & { request_id: string }, answer: 'accepted' | 'refused'): Promise<PresentationRow | undefined> {
  const result = await sql<PresentationRow>`
    with open as (
      select request_id from oid4vp_requests where request_id = ${p.request_id} and answer is null for update
    ), ${submissionCtes(p, 'open')}, answered as (
      update oid4vp_requests set answer = ${answer}, presentation_id = inserted.id, answered_at = inserted.created_at
      from inserted
      where oid4vp_requests.request_id = inserted.request_id
    )
    select * from inserted`.execute(db)
  return result.rows[0]
}

/** The verdict once the consent check had its say (it can only turn an accepted answer into a refused one). */
export async function refuseAnswer(db: Executor, requestId: string): Promise<void> {
  await db.updateTable('oid4vp_requests').set({ answer: 'refused' }).where('request_id', '=', requestId).execute()
}
