import { ValidationError } from '../../errors.js'
import { didMethod } from '../did/did-normalize.js'
import { didMethods } from '../did/methods/registered-methods.js'

/**
 * Which DIDs may be registered with a key the caller names. A DID whose method makes it its key
 * (DidMethodSignIn.registersOwnKey) must be registered with that key. Otherwise only methods this
 * service is the authority for (REGISTRABLE_DID_METHODS) qualify: registering a did:jwk,
 * did:ethr, did:web… with another key would let anyone impersonate it, and this service would
 * publish the forged document.
 */
export function registrationOrigin(did: string, publicKey: Uint8Array, registrable: readonly string[]): string {
  const name = didMethod(did)
  const method = didMethods.get(name)
  if (method?.signIn?.registersOwnKey) {
    method.signIn.registersOwnKey(did, publicKey)
    return method.signIn.origin
  }
  if (!registrable.includes(name)) {
    const why = method?.registrationRefusal === undefined ? '' : `: ${method.registrationRefusal}`
    throw new ValidationError(
      `did:${name} DIDs cannot be registered here${why} (registrable methods: ${registrable.map((m) => `did:${m}`).join(', ') || 'none'})`,
    )
  }
  return 'registered'
}

export function isRegistrable(did: string, registrable: readonly string[]): boolean {
  return registrable.includes(didMethod(did))
}
