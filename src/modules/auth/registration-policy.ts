import { encodeDidKey } from '../../crypto/did-key.js'
import { ValidationError } from '../../errors.js'
import { didMethod } from '../did/did-normalize.js'

/**
 * Which DIDs may be registered with a key the caller names. A did:key must be its own key.
 * Otherwise only methods this service is the authority for (REGISTRABLE_DID_METHODS) qualify:
 * registering a did:jwk, did:ethr, did:web… with another key would let anyone impersonate it,
 * and this service would publish the forged document.
 */
export function registrationOrigin(did: string, publicKey: Uint8Array, registrable: readonly string[]): 'did-key' | 'registered' {
  const method = didMethod(did)
  if (method === 'key') {
    if (encodeDidKey('ed25519', publicKey) !== did) throw new ValidationError('public_key is not the key of this did:key')
    return 'did-key'
  }
  if (!registrable.includes(method)) {
    throw new ValidationError(
      `did:${method} DIDs cannot be registered here${method === 'web' ? ': did:web resolves through its own domain' : ''} (registrable methods: ${registrable.map((m) => `did:${m}`).join(', ') || 'none'})`,
    )
  }
  return 'registered'
}

export function isRegistrable(did: string, registrable: readonly string[]): boolean {
  return registrable.includes(didMethod(did))
}
