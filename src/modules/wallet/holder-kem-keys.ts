import type { Clock } from '../../adapters/clock.js'
import {
  assertMlKem768PublicKey,
  generateMlKem768KeyPair,
  ML_KEM_768_PUBLIC_KEY_BYTES,
} from '../../crypto/ml-kem-keys.js'
import { openEnvelope, type StoredEnvelope } from '../../crypto/sealed-envelope.js'
import type { Database } from '../../db/database.js'
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js'
import type { KeyStore } from '../keys/key-store.js'
import * as repo from './holder-kem-keys.repository.js'

/** Key-store purpose of the ML-KEM-768 private keys the service holds for holders. */
export const HOLDER_KEM = 'holder-mlkem768'

export interface RecipientKey {
  publicKey: Uint8Array
  custody: 'service' | 'holder'
}

/**
 * Per-holder ML-KEM-768 keys that credential material is sealed to (DESIGN.md principle 4).
 * By default the service makes the pair and keeps the private half sealed in the key store;
 * a holder that registers its own public key holds the only private half from then on.
 */
export class HolderKemKeys {
  constructor(private readonly deps: { db: Database; keys: KeyStore; clock: Clock }) {}

  async recipient(did: string): Promise<RecipientKey> {
    const found = await repo.findHolderKemKey(this.deps.db, did)
    if (found) return { publicKey: found.public_key, custody: found.custody }
    // The private half is stored as the 64-byte seed (draft-ietf-hpke-pq); keys made before HPKE are expanded.
    const pair = generateMlKem768KeyPair()
    const stored = await this.deps.keys.storeKey(did, HOLDER_KEM, 'ML-KEM-768', pair)
    await repo.insertHolderKemKey(this.deps.db, {
      did,
      public_key: stored.publicKey,
      custody: 'service',
      kid: stored.kid,
    })
    const row = (await repo.findHolderKemKey(this.deps.db, did))!
    return { publicKey: row.public_key, custody: row.custody }
  }

  async describe(
    did: string,
  ): Promise<{ public_key: string; custody: string; algorithm: string; updated_at: string } | undefined> {
    const found = await repo.findHolderKemKey(this.deps.db, did)
    return (
      found && {
        public_key: Buffer.from(found.public_key).toString('base64url'),
        custody: found.custody,
        algorithm: 'ML-KEM-768',
        updated_at: new Date(found.updated_at).toISOString(),
      }
    )
  }

  /** The holder takes custody: later credentials are sealed to this key only. */
  async register(did: string, publicKey: Uint8Array): Promise<void> {
    const invalid = () =>
      new ValidationError(
        `public_key must be an ML-KEM-768 encapsulation key (${ML_KEM_768_PUBLIC_KEY_BYTES} bytes, base64url)`,
      )
    if (publicKey.length !== ML_KEM_768_PUBLIC_KEY_BYTES) throw invalid()
    try {
      assertMlKem768PublicKey(publicKey)
    } catch {
      throw invalid()
    }
    await repo.upsertHolderKemKey(
      this.deps.db,
      { did, public_key: publicKey, custody: 'holder', kid: null },
      this.deps.clock.now(),
    )
  }

  /**
   * Opens an envelope sealed to a service-held key (the holder's custodial decryption). Refused
   * once the holder holds its own key: the service can then only open what it sealed before.
   */
  async open(did: string, envelope: StoredEnvelope, recordId: string): Promise<Uint8Array> {
    const keys = await this.deps.keys.list(did, HOLDER_KEM)
    if (keys.length === 0) throw new NotFoundError('No service-held decryption key for this DID')
    for (const key of keys.reverse()) {
      try {
        return await openEnvelope(await this.deps.keys.openPrivateKey(key.kid), envelope, { recipient: did, recordId })
      } catch {
        // sealed to another of the holder's keys: try the next
      }
    }
    throw new ConflictError('The content is sealed to a key the service does not hold')
  }
}
