import { acceptOffer, completeJws, type ServiceClient } from '@credential-service/sdk'
import type { RoleSession } from '../lib/session.ts'

/**
 * The holder's previews and answers of OpenID4VC exchanges, all through the service's public
 * routes: a preview sends nothing to the verifier or the issuer; only Share / Accept does, and
 * Decline sends the refusal (OID4VP 1.0 §8.5 `access_denied`). The routes added with issue 35
 * (offer preview and decline, request decline) are called by path: the SDK's generated types
 * may not list them yet.
 */

type ClaimPath = Array<string | number | null>

export interface VerifierIdentity {
  client_id: string
  prefix: string
  verified: boolean
  verified_by: string
  name: string | null
  logo_uri: string | null
  domain: string | null
}

export interface PreparedPresentation {
  query_id: string
  credential_id: string
  format: string
  credential_type: string
  issuer_did: string
  claims: ClaimPath[]
  disclosed: Record<string, unknown>
  to_sign: { signing_input: string }
}

export interface RequestPreview {
  sessionId: string
  /** The verifier's client_id. */
  verifier: string
  /** How the wallet identified the verifier; absent from a service older than issue 35. */
  verifierIdentity: VerifierIdentity | null
  purpose: string | null
  presentations: PreparedPresentation[]
  credentialSets: Array<{ index: number; required: boolean; options: string[][]; satisfiable: number[]; chosen: number | null }>
  expiresAt: string
}

export interface ShareOutcome { accepted: boolean; verifier_status: number; redirect_uri: string | null; verifier_error: string | null }
export interface DeclineOutcome { verifier_status: number | null; redirect_uri: string | null }

export interface OfferClaim { path: ClaimPath; display_name: string | null; mandatory: boolean }
export interface OfferPreview {
  credential_issuer: string
  issuer: { name: string | null; logo_uri: string | null; domain: string; did: string | null }
  credential_configurations: Array<{ id: string; format: string; credential_type: string; display_name: string | null; claims: OfferClaim[] }>
  tx_code: { input_mode: string | null; length: number | null; description: string | null } | null
  grant: string
}

/** openapi-fetch's POST without the generated path list: for the routes newer than the SDK's types. */
interface LooseApi { POST(path: string, init: { params: { path: Record<string, string> }; body?: unknown }): Promise<{ data?: unknown }> }
const loose = (client: ServiceClient) => client.api as unknown as LooseApi

/**
 * OID4VP 1.0: the wallet fetches and verifies the request and prepares each proof; nothing is
 * sent to the verifier yet (POST …/presentation-requests/answer is the preview).
 */
export async function previewRequest(session: RoleSession, authorizationRequestUri: string): Promise<RequestPreview> {
  const { data } = await loose(session.client).POST('/api/wallet/{did}/presentation-requests/answer', {
    params: { path: { did: session.did } },
    body: { authorization_request_uri: authorizationRequestUri },
  })
  const d = data as Record<string, unknown>
  return {
    sessionId: d.session_id as string,
    verifier: d.verifier as string,
    verifierIdentity: (d.verifier_identity as VerifierIdentity | undefined) ?? null,
    purpose: (d.purpose as string | null | undefined) ?? null,
    presentations: d.presentations as PreparedPresentation[],
    credentialSets: (d.credential_sets as RequestPreview['credentialSets'] | undefined) ?? [],
    expiresAt: d.expires_at as string,
  }
}

/** The holder's Share: each prepared proof signed here with the holder's key, then sent by the service. */
export async function shareRequest(session: RoleSession, preview: RequestPreview): Promise<ShareOutcome> {
  const signatures: Record<string, string> = {}
  for (const p of preview.presentations) signatures[p.query_id] = await completeJws(session.key, p.to_sign.signing_input)
  const { data } = await loose(session.client).POST('/api/wallet/{did}/presentation-requests/answer/{session_id}', {
    params: { path: { did: session.did, session_id: preview.sessionId } },
    body: { signatures },
  })
  return data as ShareOutcome
}

/** The holder's Decline: the verifier gets `error=access_denied` (OID4VP 1.0 §8.5) and the session ends. */
export async function declineRequest(session: RoleSession, sessionId: string, reason?: string): Promise<DeclineOutcome> {
  const { data } = await loose(session.client).POST('/api/wallet/{did}/presentation-requests/answer/{session_id}/decline', {
    params: { path: { did: session.did, session_id: sessionId } },
    body: reason ? { reason } : {},
  })
  return data as DeclineOutcome
}

/** OID4VCI 1.0 §4.1: the offer and its issuer's metadata, read without redeeming the code. */
export async function previewOffer(session: RoleSession, offerUri: string): Promise<OfferPreview> {
  const { data } = await loose(session.client).POST('/api/wallet/{did}/offers/preview', { params: { path: { did: session.did } }, body: { offer_uri: offerUri } })
  return data as OfferPreview
}

export async function declineOffer(session: RoleSession, offerUri: string, reason?: string): Promise<void> {
  await loose(session.client).POST('/api/wallet/{did}/offers/decline', { params: { path: { did: session.did } }, body: { offer_uri: offerUri, ...(reason ? { reason } : {}) } })
}

export async function acceptOfferNow(session: RoleSession, offerUri: string, txCode: string | undefined): Promise<string> {
  const result = await acceptOffer(session.client, session.key, { offerUri, ...(txCode ? { txCode } : {}) })
  return result.status === 'issued' ? `Received ${result.credentials.length} credential(s): they are in your wallet` : 'The issuer will send the credential later (deferred)'
}
