import { sql, type RawBuilder } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { SubmittedPresentation } from './presentations.types.js'

/**
 * The two CTEs every submission shares, for a statement that closes a request and stores its
 * presentation at once: `closed` moves the request named by CTE `source`'s `request_id` from
 * pending to submitted, and `inserted` stores the presentation against it (no row when the
 * request was no longer pending). Used by the spec's approval and by the OpenID4VP answer.
 */
export function submissionCtes(p: SubmittedPresentation, source: 'entry' | 'open'): RawBuilder<unknown> {
  const from = sql.raw(source)
  return sql`closed as (
      update presentation_requests set status = 'submitted', updated_at = ${p.at}
      from ${from}
      where id = ${from}.request_id and status = 'pending'
      returning id
    ), inserted as (
      insert into presentations (id, request_id, prover_did, verifier_did, presentation_type, credential_ids, presentation_jwt, status,
        provided_attributes, revoked_attributes, consent_id, verified_at, created_at, updated_at)
      select ${p.id}, closed.id, ${p.prover_did}, ${p.verifier_did}, ${p.presentation_type}, ${JSON.stringify(p.credential_ids)}::jsonb, ${p.presentation_jwt}, 'submitted',
        '[]'::jsonb, '[]'::jsonb, null, null, ${p.at}::timestamptz, ${p.at}::timestamptz
      from closed
      returning *
    )`
}

/** Moves a pending request to its answer; false when it was no longer pending (the spec's reject and a wallet's OpenID4VP error response share it). */
export async function closeRequest(
  db: Executor,
  requestId: string,
  status: 'submitted' | 'rejected',
  at: Date,
): Promise<boolean> {
  const updated = await db
    .updateTable('presentation_requests')
    .set({ status, updated_at: at })
    .where('id', '=', requestId)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirst()
  return updated !== undefined
}
