import { encodeDidKey } from '../../crypto/did-key.js'
import type { Database } from '../../db/database.js'
import { ConflictError, ValidationError } from '../../errors.js'
import { decodePublicKeyText, ed25519Multibase } from '../auth/public-key-text.js'
import * as users from '../auth/users.repository.js'
import { didMethod, normalizeDid } from '../did/did-normalize.js'
import type { KeyStore, PublicKeyInfo } from '../keys/key-store.js'

export class AdminService {
  constructor(private readonly deps: { db: Database; keys: KeyStore }) {}

  listKeys(owner?: string, purpose?: string): Promise<PublicKeyInfo[]> {
    return this.deps.keys.list(owner, purpose)
  }

  rotateKey(owner: string, purpose: string) {
    return this.deps.keys.rotate(owner, purpose)
  }

  async registerHolder(input: { did: string; public_key: string; name?: string; email?: string }): Promise<users.UserRow> {
    const did = normalizeDid(input.did)
    const method = didMethod(did)
    const publicKey = decodePublicKeyText(input.public_key)
    if (method === 'web') throw new ValidationError('did:web DIDs resolve through their own domain and need no registration')
    if (method === 'key' && encodeDidKey('ed25519', publicKey) !== did) throw new ValidationError('public_key is not the key of this did:key')
    const created = await users.insertUser(this.deps.db, {
      did,
      public_key: ed25519Multibase(publicKey),
      key_type: 'Ed25519',
      origin: method === 'key' ? 'did-key' : 'registered',
      name: input.name,
      email: input.email,
    })
    if (!created) throw new ConflictError('This DID is already registered')
    return created
  }
}
