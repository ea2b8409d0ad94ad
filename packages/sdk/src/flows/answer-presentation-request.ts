import type { ServiceClient } from '../client.js'
import { completePreparedFor } from '../jws.js'
import type { HolderKey } from '../keys.js'
import { holderDid } from './session.js'

export interface AnswerResult {
  accepted: boolean
  /** The verifier's HTTP status: its verdict (2xx accepted). */
  verifier_status: number
  redirect_uri?: string
  verifier_error?: string
}

/**
 * Answers an OpenID4VP request (`openid4vp://…`) from the holder's wallet on this service
 * (docs/openid4vc.md "Answering a presentation request"): the service verifies the request and
 * prepares one proof per DCQL query (a KB-JWT for an SD-JWT VC, a VP-JWT for a JWT-VC), the
 * holder signs each here, the service posts the vp_token to the verifier. An mdoc's device signature
 * is signed with `deviceKey`, the P-256 key it was accepted with (acceptOffer).
 */
export async function answerPresentationRequest(
  c: ServiceClient,
  k: HolderKey,
  o: { authorizationRequestUri: string; deviceKey?: HolderKey },
): Promise<AnswerResult> {
  const did = holderDid(c, k)
  const { data: prepared } = await c.api.POST('/api/wallet/{did}/presentation-requests/answer', {
    params: { path: { did } },
    body: { authorization_request_uri: o.authorizationRequestUri },
  })
  const signatures: Record<string, string> = {}
  for (const p of prepared!.presentations)
    signatures[p.query_id] = await completePreparedFor({ holder: k, device: o.deviceKey }, p.to_sign)
  const { data } = await c.api.POST('/api/wallet/{did}/presentation-requests/answer/{session_id}', {
    params: { path: { did, session_id: prepared!.session_id } },
    body: { signatures },
  })
  const answer = data!
  return {
    accepted: answer.accepted,
    verifier_status: answer.verifier_status,
    ...(answer.redirect_uri ? { redirect_uri: answer.redirect_uri } : {}),
    ...(answer.verifier_error ? { verifier_error: answer.verifier_error } : {}),
  }
}
