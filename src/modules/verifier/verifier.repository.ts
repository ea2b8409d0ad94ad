import type { Insertable } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { TrustSource, VerifiersTable } from './verifier.table.js'
import type { PresentationRequestRow, PresetRow, VerifierRow } from './verifier.types.js'

export function insertVerifier(
  db: Executor,
  row: Omit<Insertable<VerifiersTable>, 'created_at' | 'updated_at'>,
): Promise<VerifierRow | undefined> {
  return db
    .insertInto('verifiers')
    .values(row)
    .onConflict((oc) => oc.column('did').doNothing())
    .returningAll()
    .executeTakeFirst()
}

/** A holder's answer to a request, from its inbox entry (read-only over the presentation module's holder_inbox). */
export interface RequestAnswerRow {
  holder_did: string
  status: 'approved' | 'rejected'
  reason: string | null
  at: Date
}

/**
 * Every holder's answer to a request, oldest first: what the verifier sees of an unaddressed
 * request that several holders took into their inbox (a rejection does not close it for the others).
 */
export async function requestAnswers(db: Executor, requestId: string, limit: number): Promise<RequestAnswerRow[]> {
  const rows = await db
    .selectFrom('holder_inbox')
    .select(['holder_did', 'status', 'reason', 'updated_at'])
    .where('request_id', '=', requestId)
    .where('status', 'in', ['approved', 'rejected'])
    .orderBy('updated_at', 'asc')
    .orderBy('holder_did', 'asc')
    .limit(limit)
    .execute()
  return rows.map((r) => ({
    holder_did: r.holder_did,
    status: r.status as RequestAnswerRow['status'],
    reason: r.reason,
    at: r.updated_at,
  }))
}

export function findVerifier(db: Executor, did: string): Promise<VerifierRow | undefined> {
  return db.selectFrom('verifiers').selectAll().where('did', '=', did).executeTakeFirst()
}

type JsonColumns = 'required_credentials' | 'required_predicates'
const json = <T extends Record<JsonColumns, unknown>>(row: T) => ({
  ...row,
  required_credentials: JSON.stringify(row.required_credentials),
  required_predicates: JSON.stringify(row.required_predicates),
})

export function insertRequest(db: Executor, row: PresentationRequestRow): Promise<PresentationRequestRow> {
  return db.insertInto('presentation_requests').values(json(row)).returningAll().executeTakeFirstOrThrow()
}

/** Any request by id: holders reach requests by id (from a QR code), verifiers only their own. */
export function findRequest(db: Executor, id: string): Promise<PresentationRequestRow | undefined> {
  return db.selectFrom('presentation_requests').selectAll().where('id', '=', id).executeTakeFirst()
}

export function listRequests(
  db: Executor,
  verifierDid: string,
  page: { limit: number; after?: string },
): Promise<PresentationRequestRow[]> {
  let query = db.selectFrom('presentation_requests').selectAll().where('verifier_did', '=', verifierDid)
  if (page.after) query = query.where('id', '>', page.after)
  return query.orderBy('id').limit(page.limit).execute()
}

export function insertPreset(db: Executor, row: Omit<PresetRow, 'created_at' | 'updated_at'>): Promise<PresetRow> {
  return db.insertInto('verifier_presets').values(json(row)).returningAll().executeTakeFirstOrThrow()
}

export function findPreset(db: Executor, verifierDid: string, id: string): Promise<PresetRow | undefined> {
  return db
    .selectFrom('verifier_presets')
    .selectAll()
    .where('id', '=', id)
    .where('verifier_did', '=', verifierDid)
    .executeTakeFirst()
}

export function listPresets(
  db: Executor,
  verifierDid: string,
  page: { limit: number; after?: string },
): Promise<PresetRow[]> {
  let query = db.selectFrom('verifier_presets').selectAll().where('verifier_did', '=', verifierDid)
  if (page.after) query = query.where('id', '>', page.after)
  return query.orderBy('id').limit(page.limit).execute()
}

export function findTrust(db: Executor, verifierDid: string) {
  return db.selectFrom('verifier_trust').selectAll().where('verifier_did', '=', verifierDid).executeTakeFirst()
}

export async function upsertTrust(db: Executor, verifierDid: string, sources: TrustSource[], now: Date): Promise<void> {
  const values = { verifier_did: verifierDid, sources: JSON.stringify(sources), updated_at: now }
  await db
    .insertInto('verifier_trust')
    .values(values)
    .onConflict((oc) => oc.column('verifier_did').doUpdateSet({ sources: values.sources, updated_at: now }))
    .execute()
}
