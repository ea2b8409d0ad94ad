import {
  acceptOffer,
  declineOffer as sdkDeclineOffer,
  previewedOf,
  resolveOffer,
  resolveRequest,
  type OfferPreview,
  type RequestPreview,
} from '@credential-service/sdk'
import type { RoleSession } from '../lib/session.ts'

/**
 * The holder's previews and decisions on OpenID4VC exchanges, through the SDK's preview step
 *: a preview sends nothing to the verifier and redeems nothing of an offer; only
 * Share / Accept does, and Decline sends the refusal (OID4VP 1.0 §8.5 `access_denied`) or, for
 * an offer, records it (OID4VCI has no message that tells the issuer).
 */
export type { OfferPreview, RequestPreview }
export type PreparedPresentation = RequestPreview['presentations'][number]
export type VerifierIdentity = RequestPreview['verifierIdentity']

/** OID4VP 1.0: the wallet fetches and verifies the request and prepares each proof; nothing is sent yet. */
export function previewRequest(session: RoleSession, authorizationRequestUri: string): Promise<RequestPreview> {
  return resolveRequest(session.client, session.key, { authorizationRequestUri })
}

/** OID4VCI 1.0 §4.1: the offer and its issuer's metadata, read without redeeming the code. */
export function previewOffer(session: RoleSession, offerUri: string): Promise<OfferPreview> {
  return resolveOffer(session.client, session.key, { offerUri })
}

export async function declineOffer(session: RoleSession, offerUri: string, reason?: string): Promise<void> {
  await sdkDeclineOffer(session.client, session.key, { offerUri, ...(reason ? { reason } : {}) })
}

export async function acceptOfferNow(
  session: RoleSession,
  offerUri: string,
  txCode: string | undefined,
  preview: OfferPreview,
): Promise<string> {
  const result = await acceptOffer(session.client, session.key, {
    offerUri,
    ...(txCode ? { txCode } : {}),
    previewed: previewedOf(preview),
  })
  return result.status === 'issued'
    ? `Received ${result.credentials.length} credential(s): they are in your wallet`
    : 'The issuer will send the credential later (deferred)'
}
