/**
 * The pieces of a HAIP 1.0 wallet and its wallet provider, written only with jose and node:crypto
 * (nothing of the service, nor @openid4vc): keys, DPoP proofs (RFC 9449), key proofs (OID4VCI 1.0
 * Appendix F.1), wallet attestations and their PoPs (draft-ietf-oauth-attestation-based-client-auth).
 */
import { createHash, randomUUID } from 'node:crypto'
import * as jose from 'jose'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>

export interface Key {
  privateKey: Parameters<jose.SignJWT['sign']>[0]
  jwk: jose.JWK
}

export async function newKey(): Promise<Key> {
  const pair = await jose.generateKeyPair('ES256', { extractable: true })
  const { kty, crv, x, y } = await jose.exportJWK(pair.publicKey)
  return { privateKey: pair.privateKey, jwk: { kty, crv, x, y } }
}

export const seconds = (date = new Date()) => Math.floor(date.getTime() / 1000)

/** A DPoP proof (RFC 9449 §4.2). */
export function dpopProof(
  key: Key,
  claims: { htu: string; htm?: string; iat?: number; jti?: string; nonce?: string; accessToken?: string },
): Promise<string> {
  const payload: Json = {
    htm: claims.htm ?? 'POST',
    htu: claims.htu,
    iat: claims.iat ?? seconds(),
    jti: claims.jti ?? randomUUID(),
  }
  if (claims.nonce !== undefined) payload.nonce = claims.nonce
  if (claims.accessToken) payload.ath = createHash('sha256').update(claims.accessToken).digest('base64url')
  return new jose.SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey)
}

/** A jwt key proof (OID4VCI 1.0 Appendix F.1), with extra header members (a key_attestation). */
export function keyProof(key: Key, audience: string, nonce: string, header: Json = {}): Promise<string> {
  return new jose.SignJWT({ aud: audience, iat: seconds(), nonce })
    .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: key.jwk, ...header })
    .sign(key.privateKey)
}

/** A wallet attestation (draft-ietf-oauth-attestation-based-client-auth §5.1) by `provider` for the wallet instance key `instance`. */
export function walletAttestation(
  provider: Key,
  instance: Key,
  options: { clientId?: string; exp?: number; x5c?: string[] } = {},
): Promise<string> {
  return new jose.SignJWT({
    iss: 'https://wallet-provider.example',
    sub: options.clientId ?? 'haip-wallet',
    iat: seconds(),
    exp: options.exp ?? seconds() + 3600,
    cnf: { jwk: instance.jwk },
  })
    .setProtectedHeader({
      alg: 'ES256',
      typ: 'oauth-client-attestation+jwt',
      ...(options.x5c ? { x5c: options.x5c } : {}),
    })
    .sign(provider.privateKey)
}

/** Its proof of possession (§5.2), signed by the wallet instance key, for the authorization server `audience`. */
export function attestationPop(
  instance: Key,
  audience: string,
  options: { clientId?: string; jti?: string; challenge?: string } = {},
): Promise<string> {
  return new jose.SignJWT({
    iss: options.clientId ?? 'haip-wallet',
    aud: audience,
    jti: options.jti ?? randomUUID(),
    iat: seconds(),
    exp: seconds() + 60,
    ...(options.challenge ? { challenge: options.challenge } : {}),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'oauth-client-attestation-pop+jwt' })
    .sign(instance.privateKey)
}

/** A key attestation (OID4VCI 1.0 Appendix D.1) by `provider` for `keys`. */
export function keyAttestation(
  provider: Key,
  keys: Key[],
  options: { nonce?: string; exp?: number; x5c?: string[] } = {},
): Promise<string> {
  return new jose.SignJWT({
    iat: seconds(),
    exp: options.exp ?? seconds() + 3600,
    attested_keys: keys.map((k) => k.jwk),
    key_storage: ['iso_18045_high'],
    user_authentication: ['iso_18045_high'],
    ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'key-attestation+jwt', ...(options.x5c ? { x5c: options.x5c } : {}) })
    .sign(provider.privateKey)
}
