import type { ServiceClient } from '../client.js'
import type { paths } from '../generated/schema.js'
import { completePreparedFor } from '../jws.js'
import type { HolderKey } from '../keys.js'
import type { AnswerResult } from './answer-presentation-request.js'
import { holderDid } from './session.js'

type Prepared =
  paths['/api/wallet/{did}/presentation-requests/answer']['post']['responses'][201]['content']['application/json']

export interface DeclineResult {
  /** The verifier's HTTP status for the error response; null when it could not be reached (the decline stands). */
  verifier_status: number | null
  redirect_uri?: string
}

/**
 * An OpenID4VP request as the holder reads it before deciding: who asks and how that is proven
 * (`verifierIdentity`), why (`purpose`), and what each presentation would disclose (`presentations`:
 * claim paths and values). Nothing has been sent to the verifier; `accept()` signs and sends,
 * `decline()` sends the error response access_denied (OpenID4VP 1.0 §8.5). Either once.
 */
export interface RequestPreview {
  sessionId: string
  /** The verifier's client identifier (OpenID4VP 1.0 §5.9). */
  verifier: string
  verifierIdentity: Prepared['verifier_identity']
  purpose: string | null
  presentations: Array<Omit<Prepared['presentations'][number], 'to_sign'>>
  credentialSets?: Prepared['credential_sets']
  expiresAt: string
  accept(): Promise<AnswerResult>
  decline(reason?: string): Promise<DeclineResult>
}

/**
 * Resolves an OpenID4VP request (`openid4vp://…`) in the holder's wallet on this service without
 * answering it (docs/openid4vc.md "Answering a presentation request"): the service verifies the
 * request and prepares one holder proof per DCQL query; `choices` picks an option per credential set.
 * An mdoc's device signature is signed with `deviceKey`, the P-256 key it was accepted with (acceptOffer).
 */
export async function resolveRequest(
  c: ServiceClient,
  k: HolderKey,
  o: { authorizationRequestUri: string; choices?: Record<string, number | null>; deviceKey?: HolderKey },
): Promise<RequestPreview> {
  const did = holderDid(c, k)
  const { data } = await c.api.POST('/api/wallet/{did}/presentation-requests/answer', {
    params: { path: { did } },
    body: { authorization_request_uri: o.authorizationRequestUri, ...(o.choices ? { choices: o.choices } : {}) },
  })
  const prepared = data!
  const session = { did, session_id: prepared.session_id }
  // One decision per request; a call the service refused (a network error, a 4xx) may be made again.
  let deciding = false
  const once = async <T>(decide: () => Promise<T>): Promise<T> => {
    if (deciding) throw new Error('This request was answered or declined already')
    deciding = true
    try {
      return await decide()
    } catch (error) {
      deciding = false
      throw error
    }
  }
  return {
    sessionId: prepared.session_id,
    verifier: prepared.verifier,
    verifierIdentity: prepared.verifier_identity,
    purpose: prepared.purpose,
    presentations: prepared.presentations.map(({ to_sign: _toSign, ...shown }) => shown),
    ...(prepared.credential_sets ? { credentialSets: prepared.credential_sets } : {}),
    expiresAt: prepared.expires_at,
    accept: () =>
      once(async () => {
        const signatures: Record<string, string> = {}
        for (const p of prepared.presentations)
          signatures[p.query_id] = await completePreparedFor({ holder: k, device: o.deviceKey }, p.to_sign)
        const { data: answer } = await c.api.POST('/api/wallet/{did}/presentation-requests/answer/{session_id}', {
          params: { path: session },
          body: { signatures },
        })
        return {
          accepted: answer!.accepted,
          verifier_status: answer!.verifier_status,
          ...(answer!.redirect_uri ? { redirect_uri: answer!.redirect_uri } : {}),
          ...(answer!.verifier_error ? { verifier_error: answer!.verifier_error } : {}),
        }
      }),
    decline: (reason?: string) =>
      once(async () => {
        const { data: declined } = await c.api.POST(
          '/api/wallet/{did}/presentation-requests/answer/{session_id}/decline',
          {
            params: { path: session },
            body: reason === undefined ? {} : { reason },
          },
        )
        return {
          verifier_status: declined!.verifier_status,
          ...(declined!.redirect_uri ? { redirect_uri: declined!.redirect_uri } : {}),
        }
      }),
  }
}
