import type { HolderKey } from '@credential-service/sdk'

/**
 * The issuer's step-up proof (DESIGN.md "Credential requests and offers"): an Ed25519 signature
 * (RFC 8032, through WebCrypto) over the UTF-8 bytes of the service's challenge, base64-encoded.
 */
export async function signChallenge(key: HolderKey, challenge: string): Promise<string> {
  if (key.alg !== 'EdDSA') throw new Error('Step-up signatures need an Ed25519 key')
  const signature = new Uint8Array(
    await crypto.subtle.sign({ name: 'Ed25519' }, key.privateKey, new TextEncoder().encode(challenge)),
  )
  return btoa(String.fromCharCode(...signature))
}
