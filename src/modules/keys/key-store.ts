import { randomUUID } from 'node:crypto'
import type { KeyObject } from 'node:crypto'
import type { Transaction } from 'kysely'
import type { Database, DB } from '../../db/database.js'
import { ed25519PrivateKeyObject, ed25519PublicKeyObject, generateEd25519 } from '../../crypto/ed25519.js'
import { generateP256, p256PrivateKeyObject, p256PublicKeyObject } from '../../crypto/p256.js'
import { SecretBox } from '../../crypto/secret-box.js'
import { ConflictError, NotFoundError } from '../../errors.js'
import * as repo from './keys.repository.js'

/**
 * Service-managed keys: the JWT signing key now, issuer keys later. Private keys are sealed
 * under the master key; rotation retires the old key but keeps its public half, so tokens and
 * credentials signed before a rotation still verify.
 */
export interface PublicKeyInfo {
  kid: string
  owner: string
  purpose: string
  algorithm: string
  publicKey: Uint8Array
  status: 'active' | 'retired'
  createdAt: Date
  retiredAt: Date | null
}

export interface SigningKey extends PublicKeyInfo {
  /** node:crypto handle (Ed25519 or P-256); the raw private bytes never leave the key store. */
  privateKey: KeyObject
  publicKeyObject: KeyObject
}

/** Generates material for a purpose's algorithm; Ed25519 unless a module registers another. */
export interface KeyMaterial {
  publicKey: Uint8Array
  privateKey: Uint8Array
}

/** The JWS signing key types the store generates and opens as node:crypto keys. */
export type SigningAlgorithm = 'Ed25519' | 'P-256'

export type RotationGuard = (
  trx: Transaction<DB>,
  kids: { active: string; retired: string | null },
) => Promise<Error | undefined>

export interface KeyStore {
  /** The active key for (owner, purpose), created on first use (Ed25519 unless `algorithm` says otherwise). */
  activeSigningKey(owner: string, purpose: string, algorithm?: SigningAlgorithm): Promise<SigningKey>
  /** Any key, active or retired, by id: for verifying what older keys signed. */
  publicKey(kid: string): Promise<PublicKeyInfo | undefined>
  publicKeyObject(kid: string): Promise<KeyObject | undefined>
  list(owner?: string, purpose?: string): Promise<PublicKeyInfo[]>
  /** `guard` runs in the rotation's transaction with the new and the retired kid; its Error rolls the rotation back. */
  rotate(
    owner: string,
    purpose: string,
    guard?: RotationGuard,
  ): Promise<{ active: PublicKeyInfo; retired: PublicKeyInfo | undefined }>
  /** Stores material generated elsewhere (BBS, ML-KEM) sealed like the rest. */
  storeKey(owner: string, purpose: string, algorithm: string, material: KeyMaterial): Promise<PublicKeyInfo>
  openPrivateKey(kid: string): Promise<Uint8Array>
  /** A stored Ed25519 or P-256 key as a signing key, by id. */
  signingKey(kid: string): Promise<SigningKey>
  /**
   * Retires a key a module rotates itself (the certificates module's P-256 mdoc keys): storeKey
   * may then make a new active key for its (owner, purpose); the retired one still opens by id.
   */
  retire(kid: string): Promise<void>
}

const ED25519 = 'Ed25519'
const SIGNING: Record<
  SigningAlgorithm,
  {
    generate: () => KeyMaterial
    privateKey: (d: Uint8Array, pub: Uint8Array) => KeyObject
    publicKey: (pub: Uint8Array) => KeyObject
  }
> = {
  Ed25519: { generate: generateEd25519, privateKey: ed25519PrivateKeyObject, publicKey: ed25519PublicKeyObject },
  'P-256': { generate: generateP256, privateKey: p256PrivateKeyObject, publicKey: p256PublicKeyObject },
}
const SIGNING_CACHE_MS = 60_000

export class DbKeyStore implements KeyStore {
  private readonly box: SecretBox
  // Public keys never change once written, so that cache is permanent. Which key is active can
  // change on another instance (rotation), so the signing cache is refreshed after a while.
  private readonly signingCache = new Map<string, { key: SigningKey; loadedAt: number }>()
  private readonly publicCache = new Map<string, KeyObject>()

  constructor(
    private readonly db: Database,
    masterKey: Uint8Array,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.box = new SecretBox(masterKey, 'service-keys')
  }

  async activeSigningKey(owner: string, purpose: string, algorithm: SigningAlgorithm = ED25519): Promise<SigningKey> {
    const cacheKey = `${owner}\u0000${purpose}`
    const cached = this.signingCache.get(cacheKey)
    if (cached && this.now().getTime() - cached.loadedAt < SIGNING_CACHE_MS) return cached.key
    let row = await repo.findActive(this.db, owner, purpose)
    if (!row) {
      await repo.insertActive(
        this.db,
        this.sealedRow(newKid(), owner, purpose, algorithm, SIGNING[algorithm].generate()),
      )
      // Another instance may have won the race: the unique index keeps one active key.
      row = await repo.findActive(this.db, owner, purpose)
      if (!row) throw new Error(`active key for ${purpose} could not be created`)
    }
    const key = this.toSigningKey(row)
    this.signingCache.set(cacheKey, { key, loadedAt: this.now().getTime() })
    return key
  }

  async publicKey(kid: string): Promise<PublicKeyInfo | undefined> {
    const row = await repo.findByKid(this.db, kid)
    return row && toPublicInfo(row)
  }

  async publicKeyObject(kid: string): Promise<KeyObject | undefined> {
    const cached = this.publicCache.get(kid)
    if (cached) return cached
    const row = await repo.findByKid(this.db, kid)
    if (!row || row.algorithm !== ED25519) return undefined
    const key = ed25519PublicKeyObject(row.public_key)
    this.publicCache.set(kid, key)
    return key
  }

  async list(owner?: string, purpose?: string): Promise<PublicKeyInfo[]> {
    const rows = owner ? await repo.listByOwner(this.db, owner, purpose) : await repo.listAll(this.db)
    return rows.map(toPublicInfo)
  }

  async rotate(
    owner: string,
    purpose: string,
    guard?: RotationGuard,
  ): Promise<{ active: PublicKeyInfo; retired: PublicKeyInfo | undefined }> {
    const material = generateEd25519()
    const result = await this.db.transaction().execute(async (trx) => {
      const previous = await repo.findActive(trx, owner, purpose)
      const algorithm = previous?.algorithm ?? ED25519
      if (algorithm !== ED25519) throw new Error(`rotation of ${algorithm} keys belongs to their module`)
      if (previous) await repo.retire(trx, previous.kid, this.now())
      const kid = newKid()
      if (!(await repo.insertActive(trx, this.sealedRow(kid, owner, purpose, ED25519, material)))) {
        throw new ConflictError('Another rotation of this key is in progress; try again')
      }
      const refused = await guard?.(trx, { active: kid, retired: previous?.kid ?? null })
      if (refused) throw refused
      const active = await repo.findByKid(trx, kid)
      const retired = previous && (await repo.findByKid(trx, previous.kid))
      return { active: toPublicInfo(active!), retired: retired && toPublicInfo(retired) }
    })
    this.signingCache.delete(`${owner}\u0000${purpose}`)
    return result
  }

  async storeKey(owner: string, purpose: string, algorithm: string, material: KeyMaterial): Promise<PublicKeyInfo> {
    const kid = newKid()
    const inserted = await repo.insertActive(this.db, this.sealedRow(kid, owner, purpose, algorithm, material))
    const row = inserted ? await repo.findByKid(this.db, kid) : await repo.findActive(this.db, owner, purpose)
    return toPublicInfo(row!)
  }

  async openPrivateKey(kid: string): Promise<Uint8Array> {
    const row = await repo.findByKid(this.db, kid)
    if (!row) throw new NotFoundError('Key not found')
    return this.box.open(row.private_key_enc, aad(row.kid, row.owner, row.purpose))
  }

  async signingKey(kid: string): Promise<SigningKey> {
    const row = await repo.findByKid(this.db, kid)
    if (!row) throw new NotFoundError('Key not found')
    return this.toSigningKey(row)
  }

  async retire(kid: string): Promise<void> {
    const row = await repo.findByKid(this.db, kid)
    if (!row || row.status !== 'active') return
    await repo.retire(this.db, kid, this.now())
    this.signingCache.delete(`${row.owner}\u0000${row.purpose}`)
  }

  private sealedRow(kid: string, owner: string, purpose: string, algorithm: string, material: KeyMaterial) {
    return {
      kid,
      owner,
      purpose,
      algorithm,
      public_key: material.publicKey,
      private_key_enc: this.box.seal(material.privateKey, aad(kid, owner, purpose)),
    }
  }

  private toSigningKey(row: repo.KeyRow): SigningKey {
    const kind = SIGNING[row.algorithm as SigningAlgorithm]
    if (!kind) throw new Error(`${row.algorithm} keys do not sign JWS`)
    const secret = this.box.open(row.private_key_enc, aad(row.kid, row.owner, row.purpose))
    const publicKey = new Uint8Array(row.public_key)
    return {
      ...toPublicInfo(row),
      privateKey: kind.privateKey(secret, publicKey),
      publicKeyObject: kind.publicKey(publicKey),
    }
  }
}

const newKid = (): string => `key-${randomUUID()}`
const aad = (kid: string, owner: string, purpose: string): string => `${kid}\u0000${owner}\u0000${purpose}`

function toPublicInfo(row: repo.KeyRow): PublicKeyInfo {
  return {
    kid: row.kid,
    owner: row.owner,
    purpose: row.purpose,
    algorithm: row.algorithm,
    publicKey: new Uint8Array(row.public_key),
    status: row.status === 'active' ? 'active' : 'retired',
    createdAt: new Date(row.created_at),
    retiredAt: row.retired_at && new Date(row.retired_at),
  }
}
