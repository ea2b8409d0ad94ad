import { sql, type Selectable } from 'kysely'
import { compiledOnce } from '../../db/compiled-once.js'
import type { Executor, RequiredCredential, RequiredPredicate } from '../../db/database.js'
import type { PresentationRequestRow } from '../verifier/verifier.types.js'
import type { HolderInboxTable } from './presentation.table.js'
import { submissionCtes } from './presentations.statements.js'
import type { PresentationRow, SubmittedPresentation } from './presentations.types.js'

// SQL of presentations and the holder inbox. Over 300 lines because submission, the outcome
// writes (single and grouped) and their reads must set and read the same columns together.

export type InboxRow = Selectable<HolderInboxTable>
export type { PresentationRow, SubmittedPresentation }

/**
 * Takes a request into the holder's inbox in one statement: reads the request and adds the entry
 * only while the request is open (pending, before expires_at at `at`: VerifierService.effectiveStatus).
 * Undefined when there is no such request; `created` false when the request is not open or the
 * entry already existed (a second take).
 */
export async function takeIntoInbox(
  db: Executor,
  row: { request_id: string; holder_did: string; at: Date },
): Promise<{ request: PresentationRequestRow; created: boolean } | undefined> {
  const result = await sql<PresentationRequestRow & { created: boolean }>`
    with request as (
      select * from presentation_requests where id = ${row.request_id} and (holder_did is null or holder_did = ${row.holder_did})
    ), added as (
      insert into holder_inbox (request_id, holder_did, status, created_at, updated_at)
      select id, ${row.holder_did}, 'pending', ${row.at}::timestamptz, ${row.at}::timestamptz from request
      where status = 'pending' and expires_at > ${row.at}::timestamptz
      on conflict (holder_did, request_id) do nothing
      returning request_id
    )
    select request.*, exists (select 1 from added) as created from request`.execute(db)
  const found = result.rows[0]
  if (!found) return undefined
  const { created, ...request } = found
  return { request, created }
}

/** The holder's inbox entry with the request it holds, in one round trip; undefined when either is missing. */
const inboxEntryWithRequest = compiledOnce((db, p: { holderDid: string; requestId: string }) =>
  db
    .selectFrom('holder_inbox as i')
    .innerJoin('presentation_requests as r', 'r.id', 'i.request_id')
    .selectAll('r')
    .select([
      'i.status as i_status',
      'i.reason as i_reason',
      'i.presentation_id as i_presentation_id',
      'i.created_at as i_created_at',
      'i.updated_at as i_updated_at',
    ])
    .where('i.holder_did', '=', p.holderDid)
    .where('i.request_id', '=', p.requestId),
)

export async function findInboxEntryWithRequest(
  db: Executor,
  holderDid: string,
  requestId: string,
): Promise<{ entry: InboxRow; request: PresentationRequestRow } | undefined> {
  const [row] = await inboxEntryWithRequest(db, { holderDid, requestId })
  if (!row) return undefined
  const { i_status, i_reason, i_presentation_id, i_created_at, i_updated_at, ...request } = row
  return {
    entry: {
      request_id: request.id,
      holder_did: holderDid,
      status: i_status,
      reason: i_reason,
      presentation_id: i_presentation_id,
      created_at: i_created_at,
      updated_at: i_updated_at,
    },
    request,
  }
}

/**
 * The holder's approval as one statement (a data-modifying CTE, atomic without a transaction of
 * its own): lock the holder's pending inbox entry, close the pending request, insert the
 * presentation, answer the entry and append the wallet activity. Each step reads the row the one
 * before returned, which fixes the order PostgreSQL runs them in: the inbox entry is locked before
 * the request row, the order reject() uses too, so a racing approve and reject queue instead of
 * deadlocking, and the loser finds the entry answered (FOR UPDATE reads its latest version).
 * Undefined when the entry or the request was no longer pending (another answer won). The
 * activity row is the one wallet-activity.ts `recordActivity` would write.
 */
export async function insertApproval(
  db: Executor,
  p: SubmittedPresentation & { request_id: string },
  activityDetails: Record<string, unknown>,
): Promise<PresentationRow | undefined> {
  const result = await sql<PresentationRow>`
    with entry as (
      select request_id from holder_inbox
      where holder_did = ${p.prover_did} and request_id = ${p.request_id} and status = 'pending'
      for update
    ), ${submissionCtes(p, 'entry')}, answered as (
      update holder_inbox set status = 'approved', reason = null, presentation_id = inserted.id, updated_at = inserted.updated_at
      from inserted
      where holder_inbox.holder_did = inserted.prover_did and holder_inbox.request_id = inserted.request_id and holder_inbox.status = 'pending'
      returning holder_inbox.holder_did, inserted.created_at
    ), activity as (
      insert into wallet_activities (holder_did, type, credential_id, details, created_at)
      select holder_did, 'presentation_submitted', null, ${JSON.stringify(activityDetails)}::jsonb, created_at from answered
    )
    select * from inserted`.execute(db)
  return result.rows[0]
}

/** Moves a pending entry to its answer; undefined when it was no longer pending (lost a race). */
export function answerInboxEntry(
  db: Executor,
  holderDid: string,
  requestId: string,
  answer: { status: 'approved' | 'rejected'; reason?: string | null; presentation_id?: string | null; at: Date },
): Promise<InboxRow | undefined> {
  return db
    .updateTable('holder_inbox')
    .set({
      status: answer.status,
      reason: answer.reason ?? null,
      presentation_id: answer.presentation_id ?? null,
      updated_at: answer.at,
    })
    .where('holder_did', '=', holderDid)
    .where('request_id', '=', requestId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst()
}

export { closeRequest } from './presentations.statements.js'

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

/** What verification needs of the request a presentation answers. */
export interface AnsweredRequest {
  id: string
  nonce: string
  required_credentials: RequiredCredential[]
  required_predicates: RequiredPredicate[]
  callback_url: string | null
  /** Scopes the consent that decides (docs/consents.md). */
  purpose: string
}

/** What a verification replaces: read only to be overwritten, so not read at all. */
type Outcome = 'verification_result' | 'provided_attributes' | 'revoked_attributes'
/** A presentation as verification reads it: all but its JWT (compared in SQL) and the last outcome. */
export type PresentationToVerify = Omit<PresentationRow, 'presentation_jwt' | Outcome>

const presentationWithRequest = compiledOnce((db, p: { id: string; jwt: string }) =>
  db
    .selectFrom('presentations as p')
    .leftJoin('presentation_requests as r', 'r.id', 'p.request_id')
    .select([
      'p.id',
      'p.request_id',
      'p.prover_did',
      'p.verifier_did',
      'p.presentation_type',
      'p.credential_ids',
      'p.status',
      'p.is_verified',
      'p.consent_id',
      'p.verified_at',
      'p.created_at',
      'p.updated_at',
    ])
    .select((eb) => eb('p.presentation_jwt', '=', p.jwt).as('jwt_matches'))
    .select([
      'r.id as r_id',
      'r.nonce as r_nonce',
      'r.required_credentials as r_required_credentials',
      'r.required_predicates as r_required_predicates',
      'r.callback_url as r_callback_url',
      'r.purpose as r_purpose',
    ])
    .where('p.id', '=', p.id),
)

/**
 * A presentation with the request it answers, in one round trip (verification runs it per call),
 * and whether `jwt` is its JWT. The JWT (kilobytes, TOASTed) and the outcome of the last
 * verification stay in the database: what they cost to decode and copy was most of this
 * statement's time on PGlite's thread.
 */
export async function findPresentationToVerify(
  db: Executor,
  id: string,
  jwt: string,
): Promise<{ presentation: PresentationToVerify; jwtMatches: boolean; request?: AnsweredRequest } | undefined> {
  const [row] = await presentationWithRequest(db, { id, jwt })
  if (!row) return undefined
  const {
    r_id,
    r_nonce,
    r_required_credentials,
    r_required_predicates,
    r_callback_url,
    r_purpose,
    jwt_matches,
    ...presentation
  } = row
  return {
    presentation,
    jwtMatches: jwt_matches === true,
    request:
      r_id === null
        ? undefined
        : {
            id: r_id,
            nonce: r_nonce!,
            required_credentials: r_required_credentials!,
            required_predicates: r_required_predicates!,
            callback_url: r_callback_url,
            purpose: r_purpose!,
          },
  }
}

/** One verification's outcome, as recordVerifications stores it. */
export interface VerificationOutcome {
  status: 'verified' | 'failed'
  is_verified: boolean
  provided_attributes: string[]
  revoked_attributes: string[]
  verification_result: Record<string, unknown>
  consent_id: string | null
  at: Date
  request_id?: string
}

export interface OutcomeWrite {
  read: PresentationToVerify & { presentation_jwt: string }
  outcome: VerificationOutcome
}

/** One outcome: a primary-key update, planned and built once (cheaper than the batch form for one row). */
const verificationUpdate = compiledOnce(
  (
    db,
    p: {
      id: string
      request_id: string | null
      status: string
      is_verified: boolean
      provided_attributes: string
      revoked_attributes: string
      verification_result: string
      consent_id: string | null
      at: Date
    },
  ) =>
    db
      .with('request_update', (qb) =>
        qb
          .updateTable('presentation_requests')
          .set({ status: p.status, updated_at: p.at })
          .where('id', '=', p.request_id)
          .where('status', 'is distinct from', p.status)
          .returning('id'),
      )
      .updateTable('presentations')
      .set({
        status: p.status,
        is_verified: p.is_verified,
        provided_attributes: p.provided_attributes,
        revoked_attributes: p.revoked_attributes,
        verification_result: p.verification_result,
        consent_id: p.consent_id,
        verified_at: p.at,
        updated_at: p.at,
      })
      .where('id', '=', p.id)
      .returning('id'),
)

/** The columns of one outcome with their SQL types, as json_to_recordset reads them. */
const OUTCOME_RECORD = sql.raw(
  'id text, request_id text, status text, is_verified boolean, provided_attributes jsonb, revoked_attributes jsonb, verification_result jsonb, consent_id text, at timestamptz',
)

/**
 * Stores verification outcomes and, for a presentation that answers a request, moves the request
 * to the same status (a request already there is left as it is: no new row version), each
 * outcome with its request in one statement (data-modifying CTEs), so atomic without a
 * transaction of its own; for a batch of concurrent ones (group commit,
 * verifier-presentations.service.ts) of BATCH_FORM_FROM or more, one statement for the whole
 * batch, its rows as one JSON parameter (the same text whatever the size). A smaller batch is
 * plain primary-key updates in flight together, which cost less than the batch form when few
 * verifications run at once (docs/decisions.md, "Measurements behind code choices"). Within a batch the
 * last outcome for a presentation, and for a request, is the one stored, as the last of
 * separate statements would be. The rows answered are `read` with each caller's outcome applied:
 * every column the statement sets is set to these values, the others never change after
 * submission (returning whole rows cost PGlite's thread more than the update itself). Throws when
 * a presentation is gone.
 */
export async function recordVerifications(db: Executor, writes: OutcomeWrite[]): Promise<PresentationRow[]> {
  if (writes.length === 0) return []
  const lastFor = (key: (w: OutcomeWrite) => string | undefined) =>
    new Map(writes.flatMap((w) => (key(w) ? [[key(w)!, w] as const] : [])))
  const lastByPresentation = lastFor((w) => w.read.id)
  const lastByRequest = lastFor((w) => w.outcome.request_id)
  const records = [...lastByPresentation.values()].map(({ read, outcome }) => ({
    id: read.id,
    request_id:
      outcome.request_id && lastByRequest.get(outcome.request_id)?.read.id === read.id ? outcome.request_id : null,
    status: outcome.status,
    is_verified: outcome.is_verified,
    provided_attributes: outcome.provided_attributes,
    revoked_attributes: outcome.revoked_attributes,
    verification_result: outcome.verification_result,
    consent_id: outcome.consent_id,
    at: outcome.at,
  }))
  // `id = any(array(select … from input))` is there for the plan: the planner takes
  // json_to_recordset for 100 rows of unknown ids and, once a table has some thousands of rows,
  // hash-joins them against a sequential scan of it; an array of the ids is an index lookup.
  const updated =
    records.length < BATCH_FORM_FROM
      ? (await Promise.all(records.map((r) => single(db, r)))).flat()
      : await sql<{ id: string }>`
    with input as (
      select * from json_to_recordset(${JSON.stringify(records)}::json) as x(${OUTCOME_RECORD})
    ), request_update as (
      update presentation_requests r set status = i.status, updated_at = i.at
      from input i
      where r.id = any(array(select request_id from input)) and r.id = i.request_id and r.status is distinct from i.status
      returning r.id
    )
    update presentations p
    set status = i.status, is_verified = i.is_verified, provided_attributes = i.provided_attributes,
        revoked_attributes = i.revoked_attributes, verification_result = i.verification_result,
        consent_id = i.consent_id, verified_at = i.at, updated_at = i.at
    from input i
    where p.id = any(array(select id from input)) and p.id = i.id
    returning p.id`
          .execute(db)
          .then((r) => r.rows)
  if (updated.length !== records.length) {
    const found = new Set(updated.map((r) => r.id))
    throw new Error(`presentation ${records.find((r) => !found.has(r.id))!.id} disappeared while it was verified`)
  }
  return writes.map(({ read, outcome }) => ({
    ...read,
    status: outcome.status,
    is_verified: outcome.is_verified,
    provided_attributes: outcome.provided_attributes,
    revoked_attributes: outcome.revoked_attributes,
    verification_result: outcome.verification_result,
    consent_id: outcome.consent_id,
    verified_at: outcome.at,
    updated_at: outcome.at,
  }))
}

/**
 * Below this many outcomes each takes the plain update (statements in flight together, pipelined
 * on PGlite's thread or spread over the pool): the batch form's JSON parsing, materialised input
 * and joins cost more than a few primary-key updates; it pays off for larger batches.
 */
const BATCH_FORM_FROM = 4

type OutcomeRecord = Omit<VerificationOutcome, 'request_id'> & { id: string; request_id: string | null }

function single(db: Executor, r: OutcomeRecord) {
  return verificationUpdate(db, {
    ...r,
    provided_attributes: JSON.stringify(r.provided_attributes),
    revoked_attributes: JSON.stringify(r.revoked_attributes),
    verification_result: JSON.stringify(r.verification_result),
  })
}

export function listPresentations(
  db: Executor,
  by: { verifierDid?: string; proverDid?: string },
  page: { limit: number; after?: string },
): Promise<PresentationRow[]> {
  let query = db.selectFrom('presentations').selectAll()
  if (by.verifierDid) query = query.where('verifier_did', '=', by.verifierDid)
  if (by.proverDid) query = query.where('prover_did', '=', by.proverDid)
  if (page.after) query = query.where('id', '>', page.after)
  return query.orderBy('id').limit(page.limit).execute()
}
