import { randomUUID } from 'node:crypto'
import type { Database, Executor } from '../../db/database.js'
import { ed25519VerifyAsync } from '../../crypto/ed25519.js'
import { decodeBase64Any } from '../../crypto/encoding.js'
import { ConflictError, NotFoundError, UnauthenticatedError, ValidationError } from '../../errors.js'
import type { ContentStore } from '../../adapters/content-store/content-store.js'
import type { Clock } from '../../adapters/clock.js'
import { normalizeDid } from '../did/did-normalize.js'
import type { DidResolver } from '../did/did-resolver.js'
import type { ChallengeCodec, ChallengePurpose } from './challenge-codec.js'
import { decodePublicKeyText, ed25519Multibase } from './public-key-text.js'
import { LoginWriter } from './login-writer.js'
import { isRegistrable, registrationOrigin } from './registration-policy.js'
import { SignerKeyResolver, toSignerKey, type SignerKey } from './signer-keys.js'
import type { TokenService } from './token-service.js'
import * as users from './users.repository.js'
import { insertNewUser } from './users.service.js'
import * as wallets from './wallets.repository.js'
import { sniffImage } from './image-type.js'

export interface AuthServiceDeps {
  db: Database
  codec: ChallengeCodec
  tokens: TokenService
  resolver: DidResolver
  content: ContentStore
  clock: Clock
  challengeTtlSeconds: number
  registrableDidMethods: readonly string[]
}

export interface Proof {
  did: string
  challenge: string
  signature: string
}

export interface Session {
  user: users.UserSummary
  token: string
  expiresAt: Date
}

/** Proof of DID control (challenge signature) and everything built on it: sessions, profiles, wallets. */
export class AuthService {
  private readonly loginWriter: LoginWriter
  private readonly signers: SignerKeyResolver

  constructor(private readonly deps: AuthServiceDeps) {
    this.loginWriter = new LoginWriter(deps.db, deps.clock)
    this.signers = new SignerKeyResolver(deps.db, deps.resolver)
  }

  createChallenge(
    rawDid: string,
    purpose: ChallengePurpose = 'login',
  ): { did: string; challenge: string; expiresAt: Date } {
    const did = normalizeDid(rawDid)
    const expiresAt = new Date(this.deps.clock.now().getTime() + this.deps.challengeTtlSeconds * 1000)
    return { did, challenge: this.deps.codec.create(did, purpose, expiresAt), expiresAt }
  }

  /** Login: verify the proof, spend the challenge, create or touch the user, issue a token. */
  async login(proof: Proof): Promise<Session> {
    const verified = await this.verifyProof(proof)
    const user = await this.loginWriter.write({
      nonce: verified.challenge.nonce,
      expiresAt: verified.challenge.expiresAt,
      user: { did: verified.did, public_key: verified.publicKey, key_type: 'Ed25519', origin: verified.origin },
    })
    if (!user) throw new UnauthenticatedError('Challenge already used')
    return this.session(user)
  }

  async register(input: Proof & { public_key: string; name?: string; email?: string }): Promise<Session> {
    const did = normalizeDid(input.did)
    const publicKey = decodePublicKeyText(input.public_key)
    const origin = registrationOrigin(did, publicKey, this.deps.registrableDidMethods)
    const challenge = this.checkChallenge(did, input.challenge, 'login')
    await this.checkSignature(input.challenge, input.signature, [toSignerKey(publicKey)])
    // Tokens are issued after commit: the key store must not be used inside a transaction
    // (embedded PGlite has one connection, so a nested query would wait on itself).
    const user = await this.deps.db.transaction().execute(async (trx) => {
      const created = await insertNewUser(trx, { did, publicKey, origin, name: input.name, email: input.email })
      await this.spend(trx, challenge)
      return created
    })
    return this.session(user)
  }

  async me(did: string): Promise<users.UserRow> {
    const user = await users.findUser(this.deps.db, did)
    if (!user) throw new NotFoundError('User not found')
    return user
  }

  async profile(did: string): Promise<{ user: users.UserRow; wallets: number; hasSeed: boolean }> {
    const [user, walletCount, seed] = await Promise.all([
      this.me(did),
      wallets.countWallets(this.deps.db, did),
      wallets.findSeed(this.deps.db, did),
    ])
    return { user, wallets: walletCount, hasSeed: seed !== undefined }
  }

  async updateProfile(did: string, patch: { name?: string; email?: string; bio?: string | null }): Promise<void> {
    const updated = await users.updateUser(this.deps.db, did, patch, this.deps.clock.now())
    if (!updated) throw new NotFoundError('User not found')
  }

  async setAvatar(
    did: string,
    bytes: Uint8Array,
    declaredType: string,
  ): Promise<{ cid: string; contentType: string; size: number }> {
    if (bytes.length === 0) throw new ValidationError('The avatar file is empty')
    const contentType = sniffImage(bytes)
    if (!contentType) throw new ValidationError('The avatar must be a PNG, JPEG, GIF or WebP image')
    if (declaredType && declaredType !== 'application/octet-stream' && declaredType !== contentType) {
      throw new ValidationError(`The file is ${contentType} but was sent as ${declaredType}`)
    }
    const stored = await this.deps.content.put(bytes)
    const updated = await users.updateUser(
      this.deps.db,
      did,
      { avatar_cid: stored.cid, avatar_content_type: contentType },
      this.deps.clock.now(),
    )
    if (!updated) throw new NotFoundError('User not found')
    return { cid: stored.cid, contentType, size: stored.size }
  }

  /** A wallet is bound to a DID by a fresh proof; the first wallet also creates the user. */
  async createWallet(
    input: Proof & {
      public_key?: string
      wallet_name?: string
      wallet_type?: string
      metadata?: Record<string, unknown>
      encrypted_seed?: string
      encryption?: Record<string, unknown>
    },
  ): Promise<Session & { wallet: wallets.WalletRow }> {
    if ((input.encrypted_seed === undefined) !== (input.encryption === undefined)) {
      throw new ValidationError('encrypted_seed and encryption go together')
    }
    const did = normalizeDid(input.did)
    // A public_key registers a DID of another method, but only one nobody holds yet: for a known
    // DID the stored key decides.
    const registering =
      input.public_key !== undefined &&
      isRegistrable(did, this.deps.registrableDidMethods) &&
      (await users.findUser(this.deps.db, did)) === undefined
    const verified = registering
      ? {
          ...(await this.verifyWithKey(did, input, decodePublicKeyText(input.public_key!))),
          origin: 'registered' as const,
        }
      : await this.verifyProof(input)
    const now = this.deps.clock.now()
    const result = await this.deps.db.transaction().execute(async (trx) => {
      let user = await users.findUser(trx, did)
      if (!user) {
        user = await users.insertUser(trx, {
          did,
          public_key: verified.publicKey,
          key_type: 'Ed25519',
          origin: verified.origin,
        })
        if (!user) throw new ConflictError('This DID was registered concurrently; try again')
      }
      await this.spend(trx, verified.challenge)
      const wallet = await wallets.insertWallet(trx, {
        id: `wallet-${randomUUID()}`,
        did,
        wallet_name: input.wallet_name ?? 'Default wallet',
        wallet_type: input.wallet_type ?? 'web',
        metadata: input.metadata ?? {},
      })
      if (input.encrypted_seed !== undefined) {
        checkSeedEncoding(input.encrypted_seed)
        const stored = await wallets.upsertSeed(
          trx,
          { did, encrypted_seed: input.encrypted_seed, encryption: input.encryption! },
          undefined,
          now,
        )
        if (!stored)
          throw new ConflictError(
            'A seed is already stored for this DID: replace it with POST /api/auth/wallet/encrypted-seed and expected_version',
          )
      }
      await wallets.touchWallet(trx, wallet.id, did, now)
      return { user, wallet: { ...wallet, last_login_at: now } }
    })
    return { ...(await this.session(result.user)), wallet: result.wallet }
  }

  async loginWallet(input: Proof & { wallet_id?: string }): Promise<Session & { wallets: wallets.WalletRow[] }> {
    const verified = await this.verifyProof(input)
    const now = this.deps.clock.now()
    const result = await this.deps.db.transaction().execute(async (trx) => {
      const owned = await wallets.listWallets(trx, verified.did)
      if (owned.length === 0) throw new NotFoundError('No wallet exists for this DID: create one first')
      if (input.wallet_id !== undefined && !owned.some((w) => w.id === input.wallet_id)) {
        throw new NotFoundError('Wallet not found')
      }
      const user = await LoginWriter.writeIn(
        trx,
        {
          nonce: verified.challenge.nonce,
          expiresAt: verified.challenge.expiresAt,
          user: { did: verified.did, public_key: verified.publicKey, key_type: 'Ed25519', origin: verified.origin },
        },
        now,
      )
      if (!user) throw new UnauthenticatedError('Challenge already used')
      const touched = input.wallet_id ?? owned[0]!.id
      await wallets.touchWallet(trx, touched, verified.did, now)
      return { user, wallets: owned.map((w) => (w.id === touched ? { ...w, last_login_at: now } : w)) }
    })
    return { ...(await this.session(result.user)), wallets: result.wallets }
  }

  async putEncryptedSeed(
    did: string,
    input: { encrypted_seed: string; encryption: Record<string, unknown>; expected_version?: number },
  ): Promise<{ row: wallets.SeedRow; created: boolean }> {
    checkSeedEncoding(input.encrypted_seed)
    const row = await wallets.upsertSeed(
      this.deps.db,
      { did, encrypted_seed: input.encrypted_seed, encryption: input.encryption },
      input.expected_version,
      this.deps.clock.now(),
    )
    if (!row) {
      throw new ConflictError(
        input.expected_version === undefined
          ? 'A seed is already stored: send expected_version (its current version) to replace it'
          : 'The stored seed changed (version mismatch): fetch it and retry',
      )
    }
    return { row, created: row.version === 1 }
  }

  /** Fetching the seed needs a fresh proof of DID control, not just a session token. */
  async getEncryptedSeed(proof: Proof): Promise<wallets.SeedRow> {
    const verified = await this.verifyProof(proof, 'encrypted-seed')
    return this.deps.db.transaction().execute(async (trx) => {
      await this.spend(trx, verified.challenge)
      const seed = await wallets.findSeed(trx, verified.did)
      if (!seed) throw new NotFoundError('No encrypted seed is stored for this DID')
      return seed
    })
  }

  /** Step-up proof for other modules (issuer authenticate, request approval): spends the challenge. */
  async proveControl(proof: Proof, expectedDid: string): Promise<void> {
    const verified = await this.verifyProof(proof, 'step-up')
    if (verified.did !== expectedDid) throw new UnauthenticatedError('The proof is for another DID')
    await this.spend(this.deps.db, verified.challenge)
  }

  private async verifyProof(proof: Proof, purpose: ChallengePurpose = 'login') {
    const did = normalizeDid(proof.did)
    const challenge = this.checkChallenge(did, proof.challenge, purpose)
    const signer = await this.signers.keysFor(did)
    const key = await this.checkSignature(proof.challenge, proof.signature, signer.keys)
    return { did, challenge, publicKey: key.multibase, origin: signer.origin }
  }

  private async verifyWithKey(did: string, proof: Proof, key: Uint8Array) {
    const challenge = this.checkChallenge(did, proof.challenge, 'login')
    await this.checkSignature(proof.challenge, proof.signature, [toSignerKey(key)])
    return { did, challenge, publicKey: ed25519Multibase(key) }
  }

  private checkChallenge(did: string, challenge: string, purpose: ChallengePurpose) {
    const decoded = this.deps.codec.decode(challenge, did, purpose, this.deps.clock.now())
    if (decoded === 'expired') throw new UnauthenticatedError('Challenge expired: request a new one')
    if (decoded === 'wrong-purpose')
      throw new UnauthenticatedError(
        `This challenge was issued for another purpose: request one with purpose "${purpose}"`,
      )
    if (typeof decoded === 'string')
      throw new UnauthenticatedError('Unknown challenge, or a challenge issued for another DID')
    return decoded
  }

  /** The interface spec's raw Ed25519 signature (RFC 8032) over the challenge's UTF-8 bytes, not a JWS. */
  private async checkSignature(challenge: string, signature: string, keys: SignerKey[]): Promise<SignerKey> {
    const sig = decodeBase64Any(signature)
    if (sig && sig.length === 64) {
      const message = Buffer.from(challenge, 'utf8')
      for (const signer of keys) {
        if (await ed25519VerifyAsync(signer.key, message, sig)) return signer
      }
    }
    throw new UnauthenticatedError('Invalid signature')
  }

  private async spend(db: Executor, challenge: { nonce: string; expiresAt: Date }): Promise<void> {
    if (!(await users.spendChallenge(db, challenge))) throw new UnauthenticatedError('Challenge already used')
  }

  private async session(user: users.UserSummary): Promise<Session> {
    const { token, claims } = await this.deps.tokens.issue(user.did)
    return { user, token, expiresAt: new Date(claims.expiresAt * 1000) }
  }
}

function checkSeedEncoding(seed: string): void {
  if (!decodeBase64Any(seed)) throw new ValidationError('encrypted_seed must be base64 or base64url')
}
