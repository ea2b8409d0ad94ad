import type { HolderKey } from './keys.js'

export function completeJws(_k: HolderKey, _signingInput: string): Promise<string> {
  throw new Error('not implemented')
}

export function signVpJwt(_k: HolderKey, _o: { audience: string; nonce: string; credentials: unknown[]; expiresInSeconds?: number }): Promise<string> {
  throw new Error('not implemented')
}

export function createKeyProof(_k: HolderKey, _o: { credentialIssuer: string; nonce: string }): Promise<string> {
  throw new Error('not implemented')
}
