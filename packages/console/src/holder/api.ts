import {
  acceptOffer,
  declineOffer as sdkDeclineOffer,
  previewedOf,
  resolveOffer,
  resolveRequest,
  type OfferPreview,
  type RequestPreview,
} from '@credential-service/sdk'
import { deviceKeyOf } from '../lib/device-key.ts'
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

/**
 * A request as the consent screen shows it. `deviceKeyMissing`: it asks for an mdoc, whose device
 * signature only the device key it was accepted with can make (ISO/IEC 18013-5 §9.1.3), and this
 * browser keeps none (the mdoc was imported, or accepted elsewhere): it cannot be shared from here.
 */
export interface RequestToAnswer {
  preview: RequestPreview
  deviceKeyMissing: boolean
}

/** OID4VP 1.0: the wallet fetches and verifies the request and prepares each proof; nothing is sent yet. */
export async function previewRequest(session: RoleSession, authorizationRequestUri: string): Promise<RequestToAnswer> {
  // An mdoc's device signature is the device key's; every JWS (KB-JWT, VP-JWT) stays the holder key's.
  const deviceKey = await deviceKeyOf(session, { create: false })
  const preview = await resolveRequest(session.client, session.key, {
    authorizationRequestUri,
    ...(deviceKey ? { deviceKey } : {}),
  })
  return { preview, deviceKeyMissing: !deviceKey && preview.presentations.some((p) => p.format === 'mso_mdoc') }
}

/** The configuration Accept takes: the offer's first (previewedOf). */
export const offeredConfiguration = (preview: OfferPreview) => preview.credential_configurations[0]

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
  // An mdoc is bound to the device key, not to the holder's DID (ISO/IEC 18013-5 §9.1.2.4).
  const deviceKey =
    offeredConfiguration(preview)?.format === 'mso_mdoc' ? await deviceKeyOf(session, { create: true }) : undefined
  const result = await acceptOffer(session.client, session.key, {
    offerUri,
    ...(txCode ? { txCode } : {}),
    previewed: previewedOf(preview),
    ...(deviceKey ? { deviceKey } : {}),
  })
  return result.status === 'issued'
    ? `Received ${result.credentials.length} credential(s): they are in your wallet`
    : 'The issuer will send the credential later (deferred)'
}
