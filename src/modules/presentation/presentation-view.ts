import type { PresentationRow } from './presentations.repository.js'

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

/** The spec's Presentation as served: ISO timestamps, the SQL row's extras left out. */
export function presentationView(row: PresentationRow) {
  return {
    id: row.id,
    request_id: row.request_id,
    prover_did: row.prover_did,
    verifier_did: row.verifier_did,
    presentation_type: row.presentation_type,
    credential_ids: row.credential_ids,
    status: row.status,
    is_verified: row.is_verified,
    provided_attributes: row.provided_attributes,
    revoked_attributes: row.revoked_attributes,
    created_at: new Date(row.created_at).toISOString(),
    verified_at: iso(row.verified_at),
    verification_result: row.verification_result,
  }
}
