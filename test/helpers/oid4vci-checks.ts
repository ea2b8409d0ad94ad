/**
 * Checks the OpenID4VCI tests share, written with libraries only (jose, @sd-jwt/sd-jwt-vc): an
 * independent SD-JWT VC verification, the OAuth error a failed wallet call carries, a form POST,
 * and a signed-in holder's did:key as a wallet key.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import * as jose from 'jose'
import type { DidClient } from './did-client.js'
import type { WalletKey } from './oid4vc-wallet/wallet-keys.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>

/** An SD-JWT VC verified with @sd-jwt/sd-jwt-vc and the key its issuer's JWT VC Issuer Metadata lists. */
export async function verifySdJwtVc(credential: string): Promise<Json> {
  const header = jose.decodeProtectedHeader(credential.split('~')[0]!)
  const payload = jose.decodeJwt(credential.split('~')[0]!)
  const iss = new URL(String(payload.iss))
  const metadata = (await (await fetch(`${iss.origin}/.well-known/jwt-vc-issuer${iss.pathname}`)).json()) as Json
  assert.equal(metadata.issuer, payload.iss)
  // The credential and its Token Status List are signed with keys the metadata lists (by kid).
  const verifier = async (data: string, signature: string) => {
    const kid = jose.decodeProtectedHeader(`${data}.${signature}`).kid
    const jwk = (metadata.jwks.keys as Json[]).find((k) => k.kid === kid)
    if (!jwk) return false
    try {
      await jose.compactVerify(`${data}.${signature}`, await jose.importJWK(jwk, jwk.alg ?? String(header.alg)))
      return true
    } catch {
      return false
    }
  }
  const sdjwt = new SDJwtVcInstance({
    hasher: (data, alg) =>
      createHash(alg.replace('-', '').toLowerCase())
        .update(typeof data === 'string' ? data : Buffer.from(data))
        .digest(),
    hashAlg: 'sha-256',
    verifier,
    statusVerifier: verifier,
  })
  const verified = await sdjwt.verify(credential)
  return verified.payload as Json
}

/** The OAuth / OID4VCI error code a failed library call (or response) carries. */
export async function errorOf(call: Promise<unknown>): Promise<string> {
  try {
    await call
  } catch (e) {
    const error = e as Json
    const code =
      error.errorResponse?.error ??
      error.response?.credentialErrorResponseResult?.data?.error ??
      error.response?.deferredCredentialErrorResponseResult?.data?.error ??
      error.response?.notificationErrorResponseResult?.data?.error
    if (code) return code
    const response = error.response?.response as Response | undefined
    if (response)
      return (
        (
          (await response
            .clone()
            .json()
            .catch(() => ({}))) as Json
        ).error ?? `HTTP ${response.status}`
      )
    throw e
  }
  return assert.fail('the call succeeded')
}

export const postForm = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  })

/** The holder's did:key as a wallet key: proofs name it by `kid`, and the holder signs in with it. */
export function walletKeyOf(client: DidClient): WalletKey {
  const privateJwk = client.privateKey.export({ format: 'jwk' }) as jose.JWK
  return {
    alg: 'EdDSA',
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x: privateJwk.x! },
    privateJwk,
    did: client.did,
    didUrl: `${client.did}#${client.did.slice('did:key:'.length)}`,
  }
}
