/**
 * Checks of what the SDK signs, made without the SDK or the service: the DIF resolvers
 * (did-resolver + key-did-resolver) read the did:key, did-jwt-vc verifies the VP-JWT (W3C VC-JWT),
 * jose verifies the OpenID4VCI key proof (RFC 7515/7519).
 */
import { verifyPresentation } from 'did-jwt-vc'
import { Resolver } from 'did-resolver'
import * as jose from 'jose'
import { getResolver as keyDidResolver } from 'key-did-resolver'
import { base58btc } from 'multiformats/bases/base58'

export const resolver = new Resolver({ ...keyDidResolver() })

/** The JWK of a did:key verification method, from key-did-resolver's document. */
export async function didKeyJwk(didUrl: string): Promise<jose.JWK> {
  const did = didUrl.split('#')[0]!
  const { didDocument, didResolutionMetadata } = await resolver.resolve(did)
  if (!didDocument) throw new Error(`cannot resolve ${did}: ${didResolutionMetadata.error ?? 'no document'}`)
  const method = (didDocument.verificationMethod ?? []).find((m) => m.id === didUrl || `${did}${m.id}` === didUrl)
  if (method?.publicKeyJwk) return method.publicKeyJwk as jose.JWK
  // Ed25519VerificationKey2018: the raw key in base58 (RFC 8037 §2 names it `x` in a JWK).
  if (method?.type === 'Ed25519VerificationKey2018' && method.publicKeyBase58)
    return { kty: 'OKP', crv: 'Ed25519', x: jose.base64url.encode(base58btc.baseDecode(method.publicKeyBase58)) }
  throw new Error(`${didUrl}: no public key read from the resolved document`)
}

/**
 * did-jwt-vc's verdict on a VP-JWT for an audience (it resolves the signer from `iss`/`kid`).
 * `format: false` skips its VC Data Model 1.1 checks of the embedded items, for derived proofs
 * (BBS objects of this service) that are not VC-JWTs; the signature, `aud` and times are still checked.
 */
export function verifyVpJwt(vpJwt: string, audience: string, o: { format?: boolean } = {}) {
  return verifyPresentation(vpJwt, resolver, { audience, policies: { format: o.format ?? true } })
}

/** jose's verdict on an openid4vci-proof+jwt (OID4VCI 1.0 App. F.1), with the key its `kid` names or its `jwk`. */
export async function verifyKeyProof(proofJwt: string, o: { audience: string }) {
  const header = jose.decodeProtectedHeader(proofJwt)
  const jwk = header.jwk ?? (await didKeyJwk(String(header.kid)))
  return jose.jwtVerify(proofJwt, await jose.importJWK(jwk, String(header.alg)), {
    audience: o.audience,
    typ: 'openid4vci-proof+jwt',
    algorithms: ['EdDSA', 'ES256'],
  })
}
