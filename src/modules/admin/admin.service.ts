import type { Database } from '../../db/database.js'
import { registerHolder, type UserRow } from '../auth/users.service.js'
import type { KeyStore, PublicKeyInfo } from '../keys/key-store.js'

export class AdminService {
  constructor(private readonly deps: { db: Database; keys: KeyStore; registrableDidMethods: readonly string[] }) {}

  listKeys(owner?: string, purpose?: string): Promise<PublicKeyInfo[]> {
    return this.deps.keys.list(owner, purpose)
  }

  rotateKey(owner: string, purpose: string) {
    return this.deps.keys.rotate(owner, purpose)
  }

  registerHolder(input: { did: string; public_key: string; name?: string; email?: string }): Promise<UserRow> {
    return registerHolder(this.deps.db, input, this.deps.registrableDidMethods)
  }
}
