import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js'
import { claimIn, type ClaimKey } from '../idempotency/idempotency.service.js'
import { recordActivity } from './wallet-activity.js'
import { findWalletCredential, type WalletCredentialRow } from './wallet-credentials.repository.js'
import * as repo from './wallet-shares.repository.js'

export interface ShareInput {
  credential_id: string
  expires_in_seconds?: number
  max_uses?: number
  purpose?: string
}

/** Default lifetime of a link when the holder gives none (capped by the configured maximum). */
const DEFAULT_TTL_SECONDS = 86_400

/** 256 random bits, base64url: unguessable, and only its SHA-256 is stored. */
const newToken = () => randomBytes(32).toString('base64url')
const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex')

/**
 * Share links (docs/wallet.md "Share"): the holder makes a time-limited, optionally use-limited
 * link to one credential; anyone holding the link gets the credential JWT (which they verify
 * themselves, it is self-contained) until it expires, is used up, or the holder revokes it,
 * removes or withdraws the credential.
 */
export class WalletShareService {
  constructor(private readonly deps: { db: Database; clock: Clock; publicBaseUrl: string; maxTtlSeconds: number }) {}

  /**
   * Makes the link. The token is shown once and stored only hashed, so an Idempotency-Key's
   * `claim` seals it with the key: a retry shows the same working link.
   */
  async create(
    holderDid: string,
    input: ShareInput,
    claim?: ClaimKey,
  ): Promise<{ share: repo.ShareRow; token: string; url: string }> {
    const credential = await findWalletCredential(this.deps.db, holderDid, input.credential_id)
    if (!credential) throw new NotFoundError('Credential not found in this wallet')
    if (credential.withdrawn_at)
      throw new ConflictError('This credential is withdrawn from the wallet and cannot be shared')
    if (credential.status === 'revoked')
      throw new ConflictError('This credential has been revoked by its issuer and cannot be shared')
    const ttl = input.expires_in_seconds ?? Math.min(DEFAULT_TTL_SECONDS, this.deps.maxTtlSeconds)
    if (ttl > this.deps.maxTtlSeconds) {
      throw new ValidationError(`expires_in_seconds must be at most ${this.deps.maxTtlSeconds}`, {
        details: { field: 'expires_in_seconds', max: this.deps.maxTtlSeconds },
      })
    }
    const now = this.deps.clock.now()
    const token = newToken()
    const id = `share-${randomUUID()}`
    const share = await this.deps.db.transaction().execute(async (trx) => {
      await claimIn(trx, claim, id, token)
      const row = await repo.insertShare(trx, {
        id,
        holder_did: holderDid,
        credential_id: credential.id,
        token_hash: tokenHash(token),
        purpose: input.purpose ?? '',
        expires_at: new Date(now.getTime() + ttl * 1000),
        max_uses: input.max_uses ?? null,
        created_at: now,
      })
      await recordActivity(trx, {
        holder_did: holderDid,
        type: 'credential_shared',
        credential_id: credential.id,
        details: { share_id: row.id, expires_at: row.expires_at.toISOString(), max_uses: row.max_uses },
        at: now,
      })
      return row
    })
    return { share, token, url: this.url(token) }
  }

  /** The answer of a creation, from the stored share and the token its Idempotency-Key sealed. */
  async replay(
    holderDid: string,
    shareId: string,
    token: unknown,
  ): Promise<{ share: repo.ShareRow; token: string; url: string }> {
    const share = await repo.findShare(this.deps.db, holderDid, shareId)
    if (!share) throw new NotFoundError('The share this Idempotency-Key created no longer exists')
    if (typeof token !== 'string') throw new Error('share replay: the sealed token is missing')
    return { share, token, url: this.url(token) }
  }

  list(
    holderDid: string,
    filter: { credential_id?: string; active?: boolean },
    page: { limit: number; after?: string },
  ): Promise<repo.ShareRow[]> {
    return repo.listShares(
      this.deps.db,
      holderDid,
      { credential_id: filter.credential_id, active_at: filter.active ? this.deps.clock.now() : undefined },
      page,
    )
  }

  async revoke(holderDid: string, shareId: string): Promise<repo.ShareRow> {
    const now = this.deps.clock.now()
    const revoked = await this.deps.db.transaction().execute(async (trx) => {
      const row = await repo.revokeShare(trx, holderDid, shareId, now)
      if (row)
        await recordActivity(trx, {
          holder_did: holderDid,
          type: 'share_revoked',
          credential_id: row.credential_id,
          details: { share_id: row.id },
          at: now,
        })
      return row
    })
    if (revoked) return revoked
    if (await repo.findShare(this.deps.db, holderDid, shareId)) throw new ConflictError('This share is already revoked')
    throw new NotFoundError('Share not found')
  }

  /**
   * The public side of a link. Every refusal is the same 404, so a link's existence is not
   * told apart from its expiry. A use is counted (and logged in the holder's activity) only
   * when the credential is actually handed out.
   */
  async open(token: string): Promise<{ share: repo.ShareRow; credential: WalletCredentialRow }> {
    const now = this.deps.clock.now()
    const gone = () => new NotFoundError('This share link is unknown, expired, used up or revoked')
    return this.deps.db.transaction().execute(async (trx) => {
      const share = await repo.useShare(trx, tokenHash(token), now)
      if (!share) throw gone()
      const credential = await findWalletCredential(trx, share.holder_did, share.credential_id)
      if (!credential || credential.withdrawn_at) throw gone()
      await recordActivity(trx, {
        holder_did: share.holder_did,
        type: 'share_accessed',
        credential_id: share.credential_id,
        details: { share_id: share.id, uses: share.uses },
        at: now,
      })
      return { share, credential }
    })
  }

  url(token: string): string {
    return `${this.deps.publicBaseUrl}/api/wallet/shared/${token}`
  }
}
