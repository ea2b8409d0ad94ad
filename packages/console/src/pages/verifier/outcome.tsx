import type { RoleSession } from '../../lib/session.ts'
import { humanize } from '../../lib/forms.ts'
import { Party, ReadableClaims, When } from '../../ui/layout.tsx'
import {
  declineOf,
  type Outcome,
  type PresentationView,
  type Predicate,
  type RequestDetail,
  type RequestView,
  type Result,
} from '../../lib/request-outcome.ts'

export {
  declineOf,
  type Outcome,
  type PresentationView,
  type Predicate,
  type RequestDetail,
  type RequestView,
  type Result,
}

export async function requestDetail(session: RoleSession, id: string): Promise<RequestDetail> {
  const { data } = await session.client.api.GET('/api/verifier/requests/{id}', { params: { path: { id } } })
  return data as unknown as RequestDetail
}

/**
 * Where a request stands: the presentation it received (its stored result, or verified now:
 * the verify route checks signatures, nonce, status, predicates and consent), a holder's
 * refusal, expiry, or still waiting.
 */
export async function outcomeOf(
  session: RoleSession,
  detail: RequestDetail,
  presentation: PresentationView | undefined,
  options: { verify?: boolean } = {},
): Promise<Outcome> {
  if (presentation) {
    const stored = presentation.verification_result as unknown as Result | null
    if (stored && 'credential_subjects' in stored) return { kind: 'result', result: stored }
    // Verifying is not idempotent (it spends a one-time consent): only one view verifies a presentation.
    if (options.verify === false) return { kind: 'pending', status: presentation.status }
    const { data: one } = await session.client.api.GET('/api/verifier/presentations/{id}', {
      params: { path: { id: presentation.id } },
    })
    // The VP as the holder submitted it: the verify route checks that text.
    const presentationJwt = (one!.presentation as { presentation_jwt?: string }).presentation_jwt
    if (!presentationJwt) return { kind: 'error', message: 'The service did not return the presentation it received' }
    try {
      const { data: verified } = await session.client.api.POST('/api/verifier/presentations/{id}/verify', {
        params: { path: { id: presentation.id } },
        body: { presentation_jwt: presentationJwt },
      })
      return { kind: 'result', result: verified!.verification_result as unknown as Result }
    } catch (e) {
      return { kind: 'error', message: e instanceof Error ? e.message : String(e) }
    }
  }
  const declined = declineOf(detail)
  if (declined) return declined
  if (detail.request.status === 'expired') return { kind: 'expired' }
  return { kind: 'pending', status: detail.request.status }
}

export async function presentationsOf(session: RoleSession): Promise<PresentationView[]> {
  const { data } = await session.client.api.GET('/api/verifier/{did}/presentations', {
    params: { path: { did: session.did }, query: { limit: 100 } },
  })
  return (data!.presentations ?? []) as unknown as PresentationView[]
}

export const OPERATOR_TEXT: Record<string, string> = { '>=': '≥', '>': '>', '<=': '≤', '<': '<' }
export const predicateText = (p: Predicate) =>
  `${humanize(p.attribute)} ${OPERATOR_TEXT[p.operator] ?? p.operator} ${String(p.value)}`

/** A short word for a table cell. */
export function outcomeLabel(outcome: Outcome | undefined): string {
  if (!outcome) return 'Loading…'
  switch (outcome.kind) {
    case 'pending':
      return outcome.status === 'pending' ? 'Waiting' : `Received (${outcome.status})`
    case 'expired':
      return 'Expired'
    case 'declined':
      return 'Declined by the holder'
    case 'result':
      return outcome.result.is_valid ? 'Verified' : 'Not valid'
    case 'error':
      return 'Could not verify'
  }
}

/** The whole outcome: validity, the holder, the disclosed claims, the proven predicates, or the refusal. */
export function OutcomeView({ outcome, request }: { outcome: Outcome; request: RequestView }) {
  switch (outcome.kind) {
    case 'pending':
      return (
        <p>
          Request status: <strong>{outcome.status}</strong>
          {outcome.status === 'pending' ? ': waiting for the holder…' : ''}
        </p>
      )
    case 'expired':
      return (
        <p>
          <strong>Expired</strong>: no holder answered in time.
        </p>
      )
    case 'error':
      return (
        <p role="alert" class="error">
          {outcome.message}
        </p>
      )
    case 'declined':
      return (
        <p class="declined" data-testid="declined">
          <strong>Declined</strong>: the holder
          {outcome.by ? (
            <>
              {' '}
              (<Party did={outcome.by} />)
            </>
          ) : (
            ''
          )}{' '}
          refused to share{outcome.via === 'openid4vp' ? ' (the wallet answered access_denied)' : ''}
          {outcome.reason ? <>: “{outcome.reason}”</> : ''}
          {outcome.at ? (
            <>
              , <When iso={outcome.at} />
            </>
          ) : (
            ''
          )}
          .
        </p>
      )
    case 'result': {
      const { result } = outcome
      return (
        <>
          <p class={result.is_valid ? 'ok' : 'error'}>
            <strong data-testid="is-valid">
              {result.is_valid ? 'Verified: is_valid true' : 'Not valid: is_valid false'}
            </strong>{' '}
            (holder <Party did={result.prover_did} />)
          </p>
          {result.errors.length > 0 && (
            <ul class="error">
              {result.errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          )}
          <h4>Disclosed claims</h4>
          {result.credential_subjects.length === 0 ? (
            <p>None.</p>
          ) : (
            result.credential_subjects.map((claims, i) => <SubjectClaims key={i} claims={claims} />)
          )}
          {request.required_predicates.length > 0 && (
            <>
              <h4>Predicates</h4>
              <ul class="predicates" data-testid="predicates">
                {request.required_predicates.map((p, i) => {
                  const proven = provenBy(result, p)
                  return (
                    <li key={i} class={proven ? 'ok' : 'error'}>
                      {proven ? 'Proven' : 'Not proven'}: {predicateText(p)}
                    </li>
                  )
                })}
              </ul>
            </>
          )}
        </>
      )
    }
  }
}

/**
 * A predicate is proven when the service reports it among the result's proven_predicates, or is
 * met by a disclosed value of a valid result (no proof needed then); an older stored result
 * without the field counts as proven when valid.
 */
function provenBy(result: Result, p: { attribute: string; operator: string }): boolean {
  if (!result.is_valid) return false
  if (!result.proven_predicates) return true
  return (
    result.proven_predicates.some((q) => q.attribute === p.attribute && q.operator === p.operator) ||
    result.credential_subjects.some((s) => p.attribute in s)
  )
}

/** Facts about the credential (its type, issuer, id) apart from the claims the holder disclosed. */
const META = new Set(['credential_id', 'issuer', 'type', 'id'])

function SubjectClaims({ claims }: { claims: Record<string, unknown> }) {
  const types = (Array.isArray(claims.type) ? claims.type : [claims.type]).filter(
    (t): t is string => typeof t === 'string' && t !== 'VerifiableCredential',
  )
  const issuer = typeof claims.issuer === 'string' ? claims.issuer : undefined
  const disclosed = Object.fromEntries(Object.entries(claims).filter(([name]) => !META.has(name)))
  return (
    <div class="subject">
      {(types.length > 0 || issuer) && (
        <p class="hint">
          {types.join(', ') || 'Credential'}
          {issuer && (
            <>
              {' '}
              issued by <Party did={issuer} />
            </>
          )}
        </p>
      )}
      <ReadableClaims claims={disclosed} empty="No claim disclosed." />
    </div>
  )
}
