import type { Selectable } from 'kysely'
import type { Executor, RequiredCredential, RequiredPredicate } from '../../db/database.js'
import type { HolderInboxTable, PresentationsTable } from './presentation.table.js'

export type InboxRow = Selectable<HolderInboxTable>
export type PresentationRow = Selectable<PresentationsTable>
/** A presentation as submitted (holder approval or direct submission), before any verification. */
export interface SubmittedPresentation {
  id: string
  request_id: string | null
  prover_did: string
  verifier_did: string
  presentation_type: string
  credential_ids: string[]
  presentation_jwt: string
  at: Date
}

/** Takes a request into the holder's inbox; a second take returns the existing entry. */
export async function addToInbox(db: Executor, row: { request_id: string; holder_did: string; at: Date }): Promise<{ entry: InboxRow; created: boolean }> {
  const inserted = await db
    .insertInto('holder_inbox')
    .values({ request_id: row.request_id, holder_did: row.holder_did, status: 'pending', created_at: row.at, updated_at: row.at })
    .onConflict((oc) => oc.columns(['holder_did', 'request_id']).doNothing())
    .returningAll()
    .executeTakeFirst()
  if (inserted) return { entry: inserted, created: true }
  return { entry: (await findInboxEntry(db, row.holder_did, row.request_id))!, created: false }
}

export function findInboxEntry(db: Executor, holderDid: string, requestId: string): Promise<InboxRow | undefined> {
  return db.selectFrom('holder_inbox').selectAll().where('holder_did', '=', holderDid).where('request_id', '=', requestId).executeTakeFirst()
}

/** Moves a pending entry to its answer; undefined when it was no longer pending (lost a race). */
export function answerInboxEntry(db: Executor, holderDid: string, requestId: string, answer: { status: 'approved' | 'rejected'; reason?: string | null; presentation_id?: string | null; at: Date }): Promise<InboxRow | undefined> {
  return db
    .updateTable('holder_inbox')
    .set({ status: answer.status, reason: answer.reason ?? null, presentation_id: answer.presentation_id ?? null, updated_at: answer.at })
    .where('holder_did', '=', holderDid)
    .where('request_id', '=', requestId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst()
}

/** Moves a pending request on (answered once); false when another answer got there first. */
export async function closeRequest(db: Executor, requestId: string, status: 'submitted' | 'rejected', at: Date): Promise<boolean> {
  const updated = await db.updateTable('presentation_requests').set({ status, updated_at: at }).where('id', '=', requestId).where('status', '=', 'pending').returning('id').executeTakeFirst()
  return updated !== undefined
}

export function insertSubmitted(db: Executor, p: SubmittedPresentation): Promise<PresentationRow> {
  const { at, ...row } = p
  return db
    .insertInto('presentations')
    .values({
      ...row,
      credential_ids: JSON.stringify(row.credential_ids),
      status: 'submitted',
      provided_attributes: '[]',
      revoked_attributes: '[]',
      consent_id: null,
      verified_at: null,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export function findPresentation(db: Executor, id: string): Promise<PresentationRow | undefined> {
  return db.selectFrom('presentations').selectAll().where('id', '=', id).executeTakeFirst()
}

/**
 * Stores a verification's outcome and, when the presentation answers a request, moves the
 * request to the same status: one statement (a data-modifying CTE), so atomic without a
 * transaction of its own.
 */
/** What verification needs of the request a presentation answers. */
export interface AnsweredRequest {
  id: string
  nonce: string
  required_credentials: RequiredCredential[]
  required_predicates: RequiredPredicate[]
  callback_url: string | null
}

/** A presentation with the request it answers, in one round trip (verification runs it per call). */
export async function findPresentationWithRequest(db: Executor, id: string): Promise<{ presentation: PresentationRow; request?: AnsweredRequest } | undefined> {
  const row = await db
    .selectFrom('presentations as p')
    .leftJoin('presentation_requests as r', 'r.id', 'p.request_id')
    .selectAll('p')
    .select(['r.id as r_id', 'r.nonce as r_nonce', 'r.required_credentials as r_required_credentials', 'r.required_predicates as r_required_predicates', 'r.callback_url as r_callback_url'])
    .where('p.id', '=', id)
    .executeTakeFirst()
  if (!row) return undefined
  const { r_id, r_nonce, r_required_credentials, r_required_predicates, r_callback_url, ...presentation } = row
  return {
    presentation,
    request: r_id === null ? undefined : { id: r_id, nonce: r_nonce!, required_credentials: r_required_credentials!, required_predicates: r_required_predicates!, callback_url: r_callback_url },
  }
}

export function recordVerification(
  db: Executor,
  id: string,
  outcome: { status: 'verified' | 'failed'; is_verified: boolean; provided_attributes: string[]; revoked_attributes: string[]; verification_result: Record<string, unknown>; consent_id: string | null; at: Date; request_id?: string },
): Promise<PresentationRow> {
  return db
    .with('request_update', (qb) =>
      qb.updateTable('presentation_requests').set({ status: outcome.status, updated_at: outcome.at }).where('id', '=', outcome.request_id ?? null).returning('id'),
    )
    .updateTable('presentations')
    .set({
      status: outcome.status,
      is_verified: outcome.is_verified,
      provided_attributes: JSON.stringify(outcome.provided_attributes),
      revoked_attributes: JSON.stringify(outcome.revoked_attributes),
      verification_result: JSON.stringify(outcome.verification_result),
      consent_id: outcome.consent_id,
      verified_at: outcome.at,
      updated_at: outcome.at,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

export function listPresentations(db: Executor, by: { verifierDid?: string; proverDid?: string }, page: { limit: number; after?: string }): Promise<PresentationRow[]> {
  let query = db.selectFrom('presentations').selectAll()
  if (by.verifierDid) query = query.where('verifier_did', '=', by.verifierDid)
  if (by.proverDid) query = query.where('prover_did', '=', by.proverDid)
  if (page.after) query = query.where('id', '>', page.after)
  return query.orderBy('id').limit(page.limit).execute()
}
