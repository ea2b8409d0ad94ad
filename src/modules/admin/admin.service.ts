import type { Database } from '../../db/database.js'
import { NotFoundError } from '../../errors.js'
import { registerHolder, type UserRow } from '../auth/users.service.js'
import type { ClaimKey } from '../idempotency/idempotency.service.js'
import type { KeyStore, PublicKeyInfo } from '../keys/key-store.js'

export class AdminService {
  constructor(private readonly deps: { db: Database; keys: KeyStore; registrableDidMethods: readonly string[] }) {}

  listKeys(owner?: string, purpose?: string): Promise<PublicKeyInfo[]> {
    return this.deps.keys.list(owner, purpose)
  }

  /** With an Idempotency-Key claim, the key is recorded in the rotation's transaction under both kids. */
  rotateKey(owner: string, purpose: string, claim?: ClaimKey) {
    return this.deps.keys.rotate(
      owner,
      purpose,
      claim && ((trx, kids) => claim(trx, JSON.stringify([kids.active, kids.retired]))),
    )
  }

  /** The answer of a rotation, rebuilt from its two keys (an Idempotency-Key replay). */
  async replayRotation(resourceId: string): Promise<{ active: PublicKeyInfo; retired: PublicKeyInfo | undefined }> {
    const [activeKid, retiredKid] = JSON.parse(resourceId) as [string, string | null]
    const active = await this.deps.keys.publicKey(activeKid)
    if (!active) throw new NotFoundError('The key this Idempotency-Key created no longer exists')
    return { active, retired: retiredKid === null ? undefined : await this.deps.keys.publicKey(retiredKid) }
  }

  registerHolder(input: { did: string; public_key: string; name?: string; email?: string }): Promise<UserRow> {
    return registerHolder(this.deps.db, input, this.deps.registrableDidMethods)
  }
}
