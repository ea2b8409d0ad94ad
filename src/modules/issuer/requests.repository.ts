import type { Selectable } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { CredentialRequestsTable } from './issuer.table.js'

export type RequestRow = Selectable<CredentialRequestsTable>
export type NewRequest = Omit<
  RequestRow,
  'created_at' | 'updated_at' | 'approval_challenge' | 'credential_id' | 'reason' | 'decided_at'
>

export function insertRequest(db: Executor, request: NewRequest): Promise<RequestRow> {
  return db
    .insertInto('credential_requests')
    .values({ ...request, attributes: JSON.stringify(request.attributes) })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export function findRequestForIssuer(db: Executor, issuerDid: string, id: string): Promise<RequestRow | undefined> {
  return db
    .selectFrom('credential_requests')
    .selectAll()
    .where('id', '=', id)
    .where('issuer_did', '=', issuerDid)
    .executeTakeFirst()
}

export function findRequestForHolder(db: Executor, holderDid: string, id: string): Promise<RequestRow | undefined> {
  return db
    .selectFrom('credential_requests')
    .selectAll()
    .where('id', '=', id)
    .where('holder_did', '=', holderDid)
    .executeTakeFirst()
}

export function listRequests(
  db: Executor,
  by: { issuer_did?: string; holder_did?: string; status?: string },
  page: { limit: number; after?: string },
): Promise<RequestRow[]> {
  let query = db.selectFrom('credential_requests').selectAll()
  if (by.issuer_did) query = query.where('issuer_did', '=', by.issuer_did)
  if (by.holder_did) query = query.where('holder_did', '=', by.holder_did)
  if (by.status) query = query.where('status', '=', by.status)
  if (page.after) query = query.where('id', '>', page.after)
  return query.orderBy('id').limit(page.limit).execute()
}

export async function setApprovalChallenge(db: Executor, id: string, challenge: string, now: Date): Promise<void> {
  await db
    .updateTable('credential_requests')
    .set({ approval_challenge: challenge, updated_at: now })
    .where('id', '=', id)
    .execute()
}

/** pending -> approved|rejected, once: undefined when it was no longer pending. */
export function decideRequest(
  db: Executor,
  id: string,
  decision: { status: 'approved' | 'rejected'; credential_id?: string; reason?: string | null },
  now: Date,
): Promise<RequestRow | undefined> {
  return db
    .updateTable('credential_requests')
    .set({
      status: decision.status,
      credential_id: decision.credential_id ?? null,
      reason: decision.reason ?? null,
      decided_at: now,
      updated_at: now,
      approval_challenge: null,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst()
}
