import type { KeyObject } from 'node:crypto'
import { decodeDidKey } from '../../crypto/did-key.js'
import { ed25519PublicKeyObject } from '../../crypto/ed25519.js'
import type { Executor } from '../../db/database.js'
import { AppError, UnauthenticatedError, ValidationError } from '../../errors.js'
import { didMethod } from '../did/did-normalize.js'
import type { DidResolver } from '../did/did-resolver.js'
import { ed25519AuthenticationKeys } from '../did/verification-keys.js'
import { decodePublicKeyText, ed25519Multibase } from './public-key-text.js'
import { findUser } from './users.repository.js'

/** An Ed25519 key allowed to sign in as a DID, raw and ready for node:crypto. */
export interface SignerKey {
  raw: Uint8Array
  key: KeyObject
  /** The key as the users table stores it (`z6Mk…`). */
  multibase: string
}

/** The keys allowed to sign in as a DID, and how its user row is created. */
export interface SignerKeys {
  keys: SignerKey[]
  origin: 'did-key' | 'did-web' | 'registered'
}

const DID_KEY_CACHE_SIZE = 10_000

/**
 * did:key carries its key; a DID registered here has the key it registered with; did:web is
 * resolved (its `authentication` keys). Anything else is unknown until registered.
 * A did:key's key is a pure function of the DID, so decoding it (point validation and the
 * KeyObject import cost more than the signature check's setup) is memoised, bounded.
 */
export class SignerKeyResolver {
  private readonly didKeys = new Map<string, SignerKey>()

  constructor(
    private readonly db: Executor,
    private readonly resolver: DidResolver,
  ) {}

  async keysFor(did: string): Promise<SignerKeys> {
    const method = didMethod(did)
    if (method === 'key') return { keys: [this.didKey(did)], origin: 'did-key' }
    const user = await findUser(this.db, did)
    if (user?.origin === 'registered') return { keys: [toSignerKey(decodePublicKeyText(user.public_key))], origin: 'registered' }
    if (method === 'web') {
      const didDocument = await this.resolveForLogin(did)
      const keys = ed25519AuthenticationKeys(didDocument)
      if (keys.length === 0) throw new UnauthenticatedError('The DID document has no Ed25519 authentication key')
      return { keys: keys.map(toSignerKey), origin: 'did-web' }
    }
    throw new UnauthenticatedError('Unknown DID: register it first (POST /api/auth/register)')
  }

  /** A did:web that does not resolve to a usable document is an authentication failure (401); a host that is down stays 503. */
  private async resolveForLogin(did: string) {
    try {
      return (await this.resolver.resolve(did)).didDocument
    } catch (error) {
      if (error instanceof AppError && error.code !== 'DEPENDENCY_UNAVAILABLE') {
        throw new UnauthenticatedError(`The DID document of ${did} could not be used: ${error.message}`, { cause: error })
      }
      throw error
    }
  }

  private didKey(did: string): SignerKey {
    const cached = this.didKeys.get(did)
    if (cached) return cached
    const decoded = decodeDidKey(did)
    if (decoded.codec !== 'ed25519') {
      throw new ValidationError(`did:key with a ${decoded.codec} key cannot sign in: Ed25519 keys only`)
    }
    const key = toSignerKey(decoded.publicKey)
    if (this.didKeys.size >= DID_KEY_CACHE_SIZE) this.didKeys.delete(this.didKeys.keys().next().value!)
    this.didKeys.set(did, key)
    return key
  }
}

export const toSignerKey = (raw: Uint8Array): SignerKey => ({ raw, key: ed25519PublicKeyObject(raw), multibase: ed25519Multibase(raw) })
