import type { Database } from '../../db/database.js'
import { ConflictError } from '../../errors.js'
import { decodePublicKeyText, ed25519Multibase } from '../auth/public-key-text.js'
import * as users from '../auth/users.repository.js'
import { normalizeDid } from '../did/did-normalize.js'
import { registrationOrigin } from '../auth/registration-policy.js'
import type { KeyStore, PublicKeyInfo } from '../keys/key-store.js'

export class AdminService {
  constructor(private readonly deps: { db: Database; keys: KeyStore; registrableDidMethods: readonly string[] }) {}

  listKeys(owner?: string, purpose?: string): Promise<PublicKeyInfo[]> {
    return this.deps.keys.list(owner, purpose)
  }

  rotateKey(owner: string, purpose: string) {
    return this.deps.keys.rotate(owner, purpose)
  }

  async registerHolder(input: { did: string; public_key: string; name?: string; email?: string }): Promise<users.UserRow> {
    const did = normalizeDid(input.did)
    const publicKey = decodePublicKeyText(input.public_key)
    const origin = registrationOrigin(did, publicKey, this.deps.registrableDidMethods)
    const created = await users.insertUser(this.deps.db, {
      did,
      public_key: ed25519Multibase(publicKey),
      key_type: 'Ed25519',
      origin,
      name: input.name,
      email: input.email,
    })
    if (!created) throw new ConflictError('This DID is already registered')
    return created
  }
}
