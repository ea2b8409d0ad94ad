import { decodeDidKey } from '../../crypto/did-key.js'
import type { Executor } from '../../db/database.js'
import { UnauthenticatedError, ValidationError } from '../../errors.js'
import { didMethod } from '../did/did-normalize.js'
import type { DidResolver } from '../did/did-resolver.js'
import { ed25519AuthenticationKeys } from '../did/verification-keys.js'
import { decodePublicKeyText, ed25519Multibase } from './public-key-text.js'
import { findUser } from './users.repository.js'

/** The Ed25519 keys allowed to sign in as a DID, and how its user row is created. */
export interface SignerKeys {
  keys: Uint8Array[]
  origin: 'did-key' | 'did-web' | 'registered'
}

/**
 * did:key carries its key; a DID registered here has the key it registered with; did:web is
 * resolved (its `authentication` keys). Anything else is unknown until registered.
 */
export async function signerKeysFor(db: Executor, resolver: DidResolver, did: string): Promise<SignerKeys> {
  const method = didMethod(did)
  if (method === 'key') {
    const decoded = decodeDidKey(did)
    if (decoded.codec !== 'ed25519') {
      throw new ValidationError(`did:key with a ${decoded.codec} key cannot sign in: Ed25519 keys only`)
    }
    return { keys: [decoded.publicKey], origin: 'did-key' }
  }
  const user = await findUser(db, did)
  if (user?.origin === 'registered') return { keys: [decodePublicKeyText(user.public_key)], origin: 'registered' }
  if (method === 'web') {
    const { didDocument } = await resolver.resolve(did)
    const keys = ed25519AuthenticationKeys(didDocument)
    if (keys.length === 0) throw new UnauthenticatedError('The DID document has no Ed25519 authentication key')
    return { keys, origin: 'did-web' }
  }
  throw new UnauthenticatedError('Unknown DID: register it first (POST /api/auth/register)')
}

export { ed25519Multibase }
