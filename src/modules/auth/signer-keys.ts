import type { KeyObject } from 'node:crypto'
import { ed25519PublicKeyObject } from '../../crypto/ed25519.js'
import type { Executor } from '../../db/database.js'
import { AppError, UnauthenticatedError } from '../../errors.js'
import { didMethod } from '../did/did-normalize.js'
import type { DidResolver } from '../did/did-resolver.js'
import type { DidMethodSignIn } from '../did/methods/did-method.js'
import { didMethods } from '../did/methods/registered-methods.js'
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
  /** `registered`, or the sign-in origin of the DID's method (DidMethodSignIn.origin). */
  origin: string
}

const SELF_CERTIFYING_CACHE_SIZE = 10_000

/**
 * A DID registered here has the key it registered with; otherwise its method says which keys
 * sign in (DidMethodSignIn: a did:key its own, a did:web its document's `authentication` keys).
 * Anything else is unknown until registered. A self-certifying DID signs in with its method's
 * keys before any lookup, and those keys are a pure function of the DID, so they are memoised,
 * bounded (point validation and the KeyObject import cost more than the signature check's setup).
 */
export class SignerKeyResolver {
  private readonly selfCertified = new Map<string, SignerKey[]>()

  constructor(
    private readonly db: Executor,
    private readonly resolver: DidResolver,
  ) {}

  async keysFor(did: string): Promise<SignerKeys> {
    const method = didMethods.get(didMethod(did))
    if (method?.selfCertifying && method.signIn)
      return { keys: await this.selfCertifiedKeys(did, method.signIn), origin: method.signIn.origin }
    const user = await findUser(this.db, did)
    if (user?.origin === 'registered')
      return { keys: [toSignerKey(decodePublicKeyText(user.public_key))], origin: 'registered' }
    if (method?.signIn) return { keys: await this.methodKeys(did, method.signIn), origin: method.signIn.origin }
    throw new UnauthenticatedError('Unknown DID: register it first (POST /api/auth/register)')
  }

  private async methodKeys(did: string, signIn: DidMethodSignIn): Promise<SignerKey[]> {
    const keys = await signIn.keys(did, () => this.resolveForLogin(did))
    if (keys.length === 0) throw new UnauthenticatedError('The DID document has no Ed25519 authentication key')
    return keys.map(toSignerKey)
  }

  /** A DID document that cannot be resolved to a usable one is an authentication failure (401); a host that is down stays 503. */
  private async resolveForLogin(did: string) {
    try {
      return (await this.resolver.resolve(did)).didDocument
    } catch (error) {
      if (error instanceof AppError && error.code !== 'DEPENDENCY_UNAVAILABLE') {
        throw new UnauthenticatedError(`The DID document of ${did} could not be used: ${error.message}`, {
          cause: error,
        })
      }
      throw error
    }
  }

  private async selfCertifiedKeys(did: string, signIn: DidMethodSignIn): Promise<SignerKey[]> {
    const cached = this.selfCertified.get(did)
    if (cached) return cached
    const keys = await this.methodKeys(did, signIn)
    if (this.selfCertified.size >= SELF_CERTIFYING_CACHE_SIZE)
      this.selfCertified.delete(this.selfCertified.keys().next().value!)
    this.selfCertified.set(did, keys)
    return keys
  }
}

export const toSignerKey = (raw: Uint8Array): SignerKey => ({
  raw,
  key: ed25519PublicKeyObject(raw),
  multibase: ed25519Multibase(raw),
})
