import type { ServiceClient } from '../client.js'
import { completeJws, signingInputHeader } from '../jws.js'
import type { HolderKey } from '../keys.js'
import { holderDid } from './session.js'

export interface AcceptOfferResult {
  status: 'issued' | 'pending'
  /** The wallet records of what the issuer sent (empty while pending). */
  credentials: unknown[]
  /** The exchange, to ask again for a deferred credential (`POST …/offers/accept/:session_id` without a body). */
  sessionId: string
  /** Pending: the seconds the issuer asks to wait before asking again. */
  interval?: number | null
}

/**
 * Takes an OpenID4VCI credential offer into the holder's wallet on this service (docs/openid4vc.md
 * "Accepting an offer"): the service runs the pre-authorized code flow and prepares the key proof
 * (OID4VCI 1.0 App. F.1), the holder signs it here, the service fetches and verifies the credential.
 */
export async function acceptOffer(
  c: ServiceClient,
  k: HolderKey,
  o: {
    offerUri: string
    txCode?: string
    /** From resolveOffer: what the holder approved. The offer is read again; one that changed meanwhile is refused (409). */
    previewed?: { credentialIssuer: string; credentialConfigurationId?: string }
  },
): Promise<AcceptOfferResult> {
  const did = holderDid(c, k)
  const { data: prepared } = await c.api.POST('/api/wallet/{did}/offers/accept', {
    params: { path: { did } },
    body: {
      offer_uri: o.offerUri,
      ...(o.txCode === undefined ? {} : { tx_code: o.txCode }),
      ...(o.previewed ? { credential_issuer: o.previewed.credentialIssuer } : {}),
      ...(o.previewed?.credentialConfigurationId
        ? { credential_configuration_id: o.previewed.credentialConfigurationId }
        : {}),
    },
  })
  const { session_id, proof } = prepared!
  // Sign only what is a key proof: the service must not get any other JWS signed through this call.
  if (signingInputHeader(proof.signing_input).typ !== 'openid4vci-proof+jwt')
    throw new Error('The prepared proof is not an openid4vci-proof+jwt')
  const { data } = await c.api.POST('/api/wallet/{did}/offers/accept/{session_id}', {
    params: { path: { did, session_id } },
    body: { proof_jwt: await completeJws(k, proof.signing_input) },
  })
  const done = data!
  return done.status === 'issued'
    ? { status: 'issued', credentials: done.credentials, sessionId: session_id }
    : { status: 'pending', credentials: [], sessionId: session_id, interval: done.interval }
}
