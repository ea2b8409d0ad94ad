/** Where a verifier's request stands, read from GET /api/verifier/requests/{id} (no DOM here: unit-tested in Node). */

export interface Predicate {
  attribute: string
  operator: string
  value: number | string
  credential_type?: string
}
export interface RequestView {
  id: string
  verifier_did: string
  presentation_type: string
  purpose: string
  status: string
  required_credentials: Array<{ credential_type: string; required_attributes?: string[] }>
  required_predicates: Predicate[]
  created_at: string
  expires_at: string
}
/** A holder's answer in the spec's inbox (contract §3: GET /api/verifier/requests/{id} `answers`). */
export interface Answer {
  holder_did: string
  status: 'approved' | 'rejected'
  reason: string | null
  at: string
}
/** The OpenID4VP side of a request: `answer` is declined and `holder_response` set when the wallet sent an error response (OID4VP 1.0 §8.5). */
export interface Oid4vpState {
  client_id: string
  answer: string | null
  holder_response?: { error: string; error_description: string | null; at: string } | null
}
export interface RequestDetail {
  request: RequestView
  answers?: Answer[]
  openid4vp?: Oid4vpState
  authorization_request_uri?: string
  authorization_request_qr?: string
}
export interface Result {
  is_valid: boolean
  errors: string[]
  credential_subjects: Array<Record<string, unknown>>
  /** What the proofs established without the values (absent from results stored before the service reported it). */
  proven_predicates?: Array<{ attribute: string; operator: string; value: number | string }>
  prover_did: string
  verified_at?: string
}
export interface PresentationView {
  id: string
  request_id: string | null
  prover_did: string
  status: string
  created_at: string
  verification_result: Record<string, unknown> | null
}

export type Outcome =
  | { kind: 'pending'; status: string }
  | { kind: 'expired' }
  | { kind: 'declined'; by: string | null; reason: string | null; at: string | null; via: 'openid4vp' | 'inbox' }
  | { kind: 'result'; result: Result }
  | { kind: 'error'; message: string }

/** A holder's refusal, through the spec's inbox or a wallet's OpenID4VP error response, if any. */
export function declineOf(detail: RequestDetail): Extract<Outcome, { kind: 'declined' }> | undefined {
  const response = detail.openid4vp?.holder_response
  if (response || detail.openid4vp?.answer === 'declined') {
    return {
      kind: 'declined',
      by: null,
      reason: response?.error_description ?? (response?.error === 'access_denied' ? null : (response?.error ?? null)),
      at: response?.at ?? null,
      via: 'openid4vp',
    }
  }
  const rejected = (detail.answers ?? []).filter((a) => a.status === 'rejected').at(-1)
  if (rejected)
    return { kind: 'declined', by: rejected.holder_did, reason: rejected.reason, at: rejected.at, via: 'inbox' }
  if (detail.request.status === 'rejected') return { kind: 'declined', by: null, reason: null, at: null, via: 'inbox' }
  return undefined
}
