import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { base58btc } from 'multiformats/bases/base58'

/**
 * A holder with its own Ed25519 key and did:key (did:key:z + base58btc(0xed 0x01 + key)),
 * encoded independently of the service's code like test/helpers/did-client.ts.
 */
export interface VirtualUser {
  did: string
  privateKey: KeyObject
}

export function createVirtualUser(): VirtualUser {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')
  return { did: `did:key:${base58btc.encode(Uint8Array.from([0xed, 0x01, ...raw]))}`, privateKey }
}

/** Ed25519 signature over the challenge's UTF-8 bytes, base64. */
export function signChallenge(user: VirtualUser, challenge: string): string {
  return sign(null, Buffer.from(challenge, 'utf8'), user.privateKey).toString('base64')
}
