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
 * With `deviceKey` (a P-256 key the holder keeps) the credential is bound to that key instead of the
 * signed-in DID: the proof carries its public `jwk` and is signed with it. An mdoc needs one
 * (ISO/IEC 18013-5 §9.1.2.4: its deviceKey signs every presentation).
 */
export async function acceptOffer(
  c: ServiceClient,
  k: HolderKey,
  o: {
    offerUri: string
    txCode?: string
    /** From resolveOffer: what the holder approved. The offer is read again; one that changed meanwhile is refused (409). */
    previewed?: { credentialIssuer: string; credentialConfigurationId?: string }
    /** The P-256 key the credential is bound to (an mdoc's device key); its private part stays here. */
    deviceKey?: HolderKey
  },
): Promise<AcceptOfferResult> {
  const did = holderDid(c, k)
  if (o.deviceKey && o.deviceKey.alg !== 'ES256')
    throw new Error(`A device key is a P-256 (ES256) key; this one signs ${o.deviceKey.alg}`)
  const { data: prepared } = await c.api.POST('/api/wallet/{did}/offers/accept', {
    params: { path: { did } },
    body: {
      offer_uri: o.offerUri,
      ...(o.txCode === undefined ? {} : { tx_code: o.txCode }),
      ...(o.previewed ? { credential_issuer: o.previewed.credentialIssuer } : {}),
      ...(o.previewed?.credentialConfigurationId
        ? { credential_configuration_id: o.previewed.credentialConfigurationId }
        : {}),
      ...(o.deviceKey ? { device_key: deviceKeyJwk(o.deviceKey) } : {}),
    },
  })
  const { session_id, proof } = prepared!
  // Sign only what is a key proof: the service must not get any other JWS signed through this call.
  const header = signingInputHeader(proof.signing_input)
  if (header.typ !== 'openid4vci-proof+jwt') throw new Error('The prepared proof is not an openid4vci-proof+jwt')
  if (o.deviceKey && !sameP256Key(header.jwk, o.deviceKey.publicJwk))
    throw new Error('The prepared proof does not name the device key given')
  const { data } = await c.api.POST('/api/wallet/{did}/offers/accept/{session_id}', {
    params: { path: { did, session_id } },
    body: { proof_jwt: await completeJws(o.deviceKey ?? k, proof.signing_input) },
  })
  const done = data!
  return done.status === 'issued'
    ? { status: 'issued', credentials: done.credentials, sessionId: session_id }
    : { status: 'pending', credentials: [], sessionId: session_id, interval: done.interval }
}

/** The public members of a P-256 JWK (RFC 7518 §6.2.1): what the service is given of the device key. */
function deviceKeyJwk(k: HolderKey): { kty: 'EC'; crv: 'P-256'; x: string; y: string } {
  const { x, y } = k.publicJwk
  if (!x || !y) throw new Error('The device key has no public coordinates')
  return { kty: 'EC', crv: 'P-256', x, y }
}

function sameP256Key(named: unknown, jwk: JsonWebKey): boolean {
  if (typeof named !== 'object' || named === null) return false
  const n = named as Record<string, unknown>
  return n.kty === 'EC' && n.crv === 'P-256' && n.x === jwk.x && n.y === jwk.y
}
