/**
 * What the holder signs. Compact JWS (RFC 7515 §7.1) and JWT (RFC 7519) made with jose over the
 * holder's WebCrypto key; nothing here encodes or signs by hand beyond joining the JWS parts.
 */
import { base64url, SignJWT } from 'jose'
import { signBytes, type HolderKey } from './keys.js'

const VP_LIFETIME_SECONDS = 600

/**
 * `${signingInput}.${signature}`: completes a JWS whose protected header and payload someone else
 * prepared (the hosted wallet's key proofs and KB-JWTs). The header's `alg` must be the key's.
 */
export async function completeJws(k: HolderKey, signingInput: string): Promise<string> {
  const alg = signingInputHeader(signingInput).alg
  if (alg !== k.alg) throw new Error(`The prepared JWS asks for ${String(alg)}; this key signs ${k.alg}`)
  const signature = await signBytes(k, new TextEncoder().encode(signingInput))
  return `${signingInput}.${base64url.encode(signature)}`
}

/** What the hosted wallet prepares for the holder to sign: a JWS signing input, or bytes for a COSE signature. */
export type PreparedToSign =
  | { signing_input: string }
  | { cose: { alg: string; to_be_signed: string; key?: Record<string, unknown> } }

/**
 * The holder's answer to one prepared presentation: for a JWS, the completed compact JWS
 * (completeJws); for `cose`, the raw signature over exactly `to_be_signed` (the COSE Sig_structure,
 * RFC 9052 §4.4), base64url. ES256 is ECDSA P-256 with SHA-256, r||s as COSE carries it (RFC 9053
 * §2.1), which is what WebCrypto returns.
 */
export async function completePrepared(k: HolderKey, toSign: PreparedToSign): Promise<string> {
  if ('signing_input' in toSign) return completeJws(k, toSign.signing_input)
  const { alg, to_be_signed: toBeSigned, key } = toSign.cose
  if (alg !== 'ES256' || k.alg !== 'ES256')
    throw new Error(`The prepared COSE signature asks for ${String(alg)}; this key signs ${k.alg}`)
  // The credential is bound to `key` (an mdoc's device key): another key's signature would only be refused.
  if (key && (key.x !== k.publicJwk.x || key.y !== k.publicJwk.y))
    throw new Error(
      'This credential is bound to another device key than the one kept here: it cannot be presented from here',
    )
  return base64url.encode(await signBytes(k, base64url.decode(toBeSigned)))
}

/**
 * completePrepared with the key each prepared presentation is bound to: an mdoc's device signature
 * (`cose`) with its device key (ISO/IEC 18013-5 §9.1.3), a JWS (KB-JWT, VP-JWT) with the holder's key.
 */
export function completePreparedFor(
  keys: { holder: HolderKey; device?: HolderKey | undefined },
  toSign: PreparedToSign,
): Promise<string> {
  return completePrepared('cose' in toSign ? (keys.device ?? keys.holder) : keys.holder, toSign)
}

/** The protected header of a JWS signing input (`BASE64URL(header).BASE64URL(payload)`, RFC 7515 §5.1). */
export function signingInputHeader(signingInput: string): Record<string, unknown> {
  const parts = signingInput.split('.')
  let header: unknown
  try {
    if (parts.length !== 2) throw new Error('two parts expected')
    header = JSON.parse(new TextDecoder().decode(base64url.decode(parts[0]!)))
  } catch {
    throw new Error('Not a JWS signing input (BASE64URL(header).BASE64URL(payload))')
  }
  if (typeof header !== 'object' || header === null) throw new Error('The JWS header is not a JSON object')
  return header as Record<string, unknown>
}

/**
 * The spec's VP-JWT (W3C VC Data Model 1.1 §6.3.1, "JWT and JWS considerations"): `iss` the holder,
 * `aud` the verifier, the request's `nonce`, `iat`/`exp`, and `vp` with the credentials (JWTs or
 * derived proofs) as they are. `kid` names the holder's did:key verification method.
 */
export function signVpJwt(
  k: HolderKey,
  o: { audience: string; nonce: string; credentials: unknown[]; expiresInSeconds?: number },
): Promise<string> {
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

/**
 * Key binding for an SD-JWT (RFC 9901 §4.3): `presentation` is the issuer-signed JWT with the
 * disclosures chosen, ending in `~`; the KB-JWT (`typ: kb+jwt`) signs the verifier's `aud`, its
 * `nonce`, `iat` and `sd_hash`, the SHA-256 of that presentation (§4.3.1). Answers the SD-JWT+KB.
 */
export async function signKbJwt(
  k: HolderKey,
  o: { presentation: string; audience: string; nonce: string },
): Promise<string> {
  if (!o.presentation.endsWith('~'))
    throw new Error(
      'An SD-JWT presentation ends with "~" (the issuer-signed JWT, then each disclosure, each followed by ~)',
    )
  const digest = new Uint8Array(
    await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(o.presentation)),
  )
  const kbJwt = await new SignJWT({ nonce: o.nonce, sd_hash: base64url.encode(digest) })
    .setProtectedHeader({ alg: k.alg, typ: 'kb+jwt' })
    .setAudience(o.audience)
    .setIssuedAt()
    .sign(k.privateKey)
  return `${o.presentation}${kbJwt}`
}
