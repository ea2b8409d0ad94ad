import { sql, type Insertable, type Selectable } from 'kysely'
import type { Executor } from '../../../db/database.js'
import { closeRequest, submissionCtes } from '../../presentation/presentations.statements.js'
import type { PresentationRow, SubmittedPresentation } from '../../presentation/presentations.types.js'
import type { Oid4vpRefusedAttemptsTable, Oid4vpRequestsTable } from './openid4vp.table.js'

export type Oid4vpRequestRow = Selectable<Oid4vpRequestsTable>

export async function insertOid4vpRequest(
  db: Executor,
  row: Omit<Insertable<Oid4vpRequestsTable>, 'request_payload'> & { request_payload: Record<string, unknown> },
): Promise<Oid4vpRequestRow> {
  return db
    .insertInto('oid4vp_requests')
    .values({ ...row, request_payload: JSON.stringify(row.request_payload) })
    .returningAll()
    .executeTakeFirstOrThrow()
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
export async function insertAnswer(
  db: Executor,
  p: SubmittedPresentation & { request_id: string },
  answer: 'accepted' | 'refused',
  responseCodeHash: string | null = null,
): Promise<PresentationRow | undefined> {
  const result = await sql<PresentationRow>`
    with open as (
      select request_id from oid4vp_requests where request_id = ${p.request_id} and answer is null for update
    ), ${submissionCtes(p, 'open')}, answered as (
      update oid4vp_requests
      set answer = ${answer}, presentation_id = inserted.id, answered_at = inserted.created_at, response_code_hash = ${responseCodeHash}
      from inserted
      where oid4vp_requests.request_id = inserted.request_id
    )
    select * from inserted`.execute(db)
  return result.rows[0]
}

/**
 * A wallet's error response (OID4VP 1.0 §8.5), recorded once in one transaction: the OpenID4VP row
 * locked and checked unanswered, the error kept and the spec's request closed from pending as
 * rejected. False when the request was answered or closed already.
 */
export async function recordHolderError(
  trx: Executor,
  requestId: string,
  error: { error: string; description: string | null; at: Date },
): Promise<boolean> {
  const open = await trx
    .selectFrom('oid4vp_requests')
    .select('request_id')
    .where('request_id', '=', requestId)
    .where('answer', 'is', null)
    .forUpdate()
    .executeTakeFirst()
  if (!open) return false
  if (!(await closeRequest(trx, requestId, 'rejected', error.at))) return false
  await trx
    .updateTable('oid4vp_requests')
    .set({
      answer: 'declined',
      holder_error: error.error,
      holder_error_description: error.description,
      holder_error_at: error.at,
      answered_at: error.at,
    })
    .where('request_id', '=', requestId)
    .execute()
  return true
}

/**
 * A wallet's error response to a request addressed to no one: kept as the latest one seen, the
 * request left open. 'first' when no error response was kept before, undefined when the request
 * was answered meanwhile (its OpenID4VP row locked, as recordHolderError does).
 */
export async function noteHolderError(
  trx: Executor,
  requestId: string,
  error: { error: string; description: string | null; at: Date },
): Promise<'first' | 'recorded' | undefined> {
  const open = await trx
    .selectFrom('oid4vp_requests')
    .select('holder_error')
    .where('request_id', '=', requestId)
    .where('answer', 'is', null)
    // Closed through the spec's routes meanwhile (an addressed holder's answer in its inbox): nothing to note.
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('presentation_requests').select('id').where('id', '=', requestId).where('status', '=', 'pending'),
      ),
    )
    .forUpdate()
    .executeTakeFirst()
  if (!open) return undefined
  await trx
    .updateTable('oid4vp_requests')
    .set({ holder_error: error.error, holder_error_description: error.description, holder_error_at: error.at })
    .where('request_id', '=', requestId)
    .execute()
  return open.holder_error === null ? 'first' : 'recorded'
}

/** How many refused attempts each request keeps (the count covers all of them). */
export const KEPT_ATTEMPTS = 10

export type RefusedAttempt = Omit<Selectable<Oid4vpRefusedAttemptsTable>, 'id' | 'request_id' | 'response_hash'>

/**
 * A refused response, in one statement: inserted unless the same response was recorded already
 * (then nothing counts), the request's count raised, and the oldest past KEPT_ATTEMPTS dropped.
 */
export async function recordRefusedAttempt(
  db: Executor,
  requestId: string,
  hash: string,
  attempt: RefusedAttempt,
): Promise<void> {
  await sql`
    with inserted as (
      insert into oid4vp_refused_attempts (request_id, response_hash, holder, holder_proof_verified, errors, received_at)
      values (${requestId}, ${hash}, ${attempt.holder}, ${attempt.holder_proof_verified},
        ${JSON.stringify(attempt.errors)}::jsonb, ${attempt.received_at})
      on conflict (request_id, response_hash) do nothing
      returning id
    ), counted as (
      update oid4vp_requests set refused_count = refused_count + 1 where request_id = ${requestId} and exists (select 1 from inserted)
    )
    delete from oid4vp_refused_attempts where id in (
      select id from oid4vp_refused_attempts where request_id = ${requestId} order by id desc offset ${KEPT_ATTEMPTS - 1}
    ) and exists (select 1 from inserted)`.execute(db)
}

/** The last refused attempts of a request, newest first. */
export function recentRefusedAttempts(db: Executor, requestId: string): Promise<RefusedAttempt[]> {
  return db
    .selectFrom('oid4vp_refused_attempts')
    .select(['holder', 'holder_proof_verified', 'errors', 'received_at'])
    .where('request_id', '=', requestId)
    .orderBy('id', 'desc')
    .limit(KEPT_ATTEMPTS)
    .execute()
}

/**
 * The vct of every schema of this service a credential type was issued, templated or offered
 * under (an SD-JWT VC's vct names its schema: sd-jwt-vc-claims.ts `vctFor`). Read-only over the
 * issuer's tables, for the DCQL query (OID4VP 1.0 B.3.5).
 */
export async function schemaIdsOfTypes(db: Executor, types: string[]): Promise<Record<string, string[]>> {
  if (types.length === 0) return {}
  const result = await sql<{ credential_type: string; schema_id: string }>`
    select t.credential_type, s.id as schema_id from credential_schemas s cross join unnest(${types}::text[]) as t(credential_type)
    where exists (select 1 from credentials c where c.schema_id = s.id and c.credential_type = t.credential_type)
       or exists (select 1 from credential_templates c where c.schema_id = s.id and c.credential_type = t.credential_type)
       or exists (select 1 from credential_offers c where c.schema_id = s.id and c.credential_type = t.credential_type)
    order by s.id`.execute(db)
  const byType: Record<string, string[]> = {}
  for (const row of result.rows) (byType[row.credential_type] ??= []).push(row.schema_id)
  return byType
}

/** The schemas that place their credentials under one of these names (an mdoc doctype), by name. */
export async function schemaIdsPlacedAs(db: Executor, names: string[]): Promise<Record<string, string[]>> {
  if (names.length === 0) return {}
  const rows = await sql<{ name: string; schema_id: string }>`
    select s.mdoc->>'doctype' as name, s.id as schema_id from credential_schemas s
    where s.mdoc->>'doctype' = any(${names}::text[]) order by s.id`.execute(db)
  const byName: Record<string, string[]> = {}
  for (const row of rows.rows) (byName[row.name] ??= []).push(row.schema_id)
  return byName
}

/** Each schema's mdoc placement (ISO/IEC 18013-5 doctype and namespace), for the DCQL query's mdoc faces. */
export async function schemaPlacements(
  db: Executor,
  ids: string[],
): Promise<Record<string, { mdoc: { doctype: string; namespace: string } | null }>> {
  if (ids.length === 0) return {}
  const rows = await db.selectFrom('credential_schemas').select(['id', 'mdoc']).where('id', 'in', ids).execute()
  return Object.fromEntries(rows.map((r) => [r.id, { mdoc: r.mdoc }]))
}

/** The schemas that have every one of these attributes (a predicate naming no credential type). */
export async function schemaIdsWithAttributes(db: Executor, attributes: string[]): Promise<string[]> {
  if (attributes.length === 0) return []
  const wanted = JSON.stringify(attributes.map((name) => ({ name })))
  const rows = await sql<{
    id: string
  }>`select id from credential_schemas where attributes @> ${wanted}::jsonb order by id`.execute(db)
  return rows.rows.map((r) => r.id)
}

/**
 * The presentation an accepted answer's response_code stands for, once: undefined when the code is
 * not this request's, or was redeemed already, or the answer was refused after all.
 */
export async function redeemResponseCode(
  db: Executor,
  requestId: string,
  hash: string,
  at: Date,
): Promise<string | undefined> {
  const row = await db
    .updateTable('oid4vp_requests')
    .set({ response_code_redeemed_at: at })
    .where('request_id', '=', requestId)
    .where('response_code_hash', '=', hash)
    .where('response_code_redeemed_at', 'is', null)
    .where('answer', '=', 'accepted')
    .returning('presentation_id')
    .executeTakeFirst()
  return row?.presentation_id ?? undefined
}

/** The verdict once the consent check had its say (it can only turn an accepted answer into a refused one). */
export async function refuseAnswer(db: Executor, requestId: string): Promise<void> {
  await db.updateTable('oid4vp_requests').set({ answer: 'refused' }).where('request_id', '=', requestId).execute()
}
