/**
 * What the holder signs. Compact JWS (RFC 7515 §7.1) and JWT (RFC 7519) made with jose over the
 * holder's WebCrypto key; nothing here encodes or signs by hand beyond joining the JWS parts.
 */
import { base64url, decodeProtectedHeader, SignJWT } from 'jose'
import { signBytes, type HolderKey } from './keys.js'

const VP_LIFETIME_SECONDS = 600

/**
 * `${signingInput}.${signature}`: completes a JWS whose protected header and payload someone else
 * prepared (the hosted wallet's key proofs and KB-JWTs). The header's `alg` must be the key's.
 */
export async function completeJws(k: HolderKey, signingInput: string): Promise<string> {
  const alg = decodeProtectedHeader(signingInput).alg
  if (alg !== k.alg) throw new Error(`The prepared JWS asks for ${String(alg)}; this key signs ${k.alg}`)
  const signature = await signBytes(k, new TextEncoder().encode(signingInput))
  return `${signingInput}.${base64url.encode(signature)}`
}

/**
 * The spec's VP-JWT (W3C VC Data Model 1.1 §6.3.1, "JWT and JWS considerations"): `iss` the holder,
 * `aud` the verifier, the request's `nonce`, `iat`/`exp`, and `vp` with the credentials (JWTs or
 * derived proofs) as they are. `kid` names the holder's did:key verification method.
 */
export function signVpJwt(k: HolderKey, o: { audience: string; nonce: string; credentials: unknown[]; expiresInSeconds?: number }): Promise<string> {
  const iat = Math.floor(Date.now() / 1000)
  return new SignJWT({
    nonce: o.nonce,
    vp: {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      type: ['VerifiablePresentation'],
      holder: k.did,
      verifiableCredential: o.credentials,
    },
  })
    .setProtectedHeader({ alg: k.alg, typ: 'JWT', kid: k.kid })
    .setIssuer(k.did)
    .setAudience(o.audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + (o.expiresInSeconds ?? VP_LIFETIME_SECONDS))
    .sign(k.privateKey)
}

/**
 * An OpenID4VCI 1.0 key proof (Appendix F.1, `openid4vci-proof+jwt`): header `kid` the holder's
 * DID key, payload `aud` the credential issuer, the `c_nonce` it gave, `iat`. No `iss`: a wallet
 * using the pre-authorized code flow has no client id (§F.1, "iss ... OPTIONAL").
 */
export function createKeyProof(k: HolderKey, o: { credentialIssuer: string; nonce: string }): Promise<string> {
  return new SignJWT({ nonce: o.nonce })
    .setProtectedHeader({ alg: k.alg, typ: 'openid4vci-proof+jwt', kid: k.kid })
    .setAudience(o.credentialIssuer)
    .setIssuedAt()
    .sign(k.privateKey)
}
