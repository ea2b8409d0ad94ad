import { randomUUID } from 'node:crypto'
import type { Transaction } from 'kysely'
import type { Clock } from '../../adapters/clock.js'
import type { Database, DB } from '../../db/database.js'
import { NotFoundError, ValidationError } from '../../errors.js'
import { normalizeDid } from '../did/did-normalize.js'
import { claimIn, type ClaimKey } from '../idempotency/idempotency.service.js'
import type { ConsentPort } from '../presentation/presentation-ports.js'
import { recordActivity } from '../wallet/wallet-activity.js'
import * as repo from './consent.repository.js'
import type { ConsentStatus, ConsentView, GrantConsentInput } from './consent.schemas.js'

/**
 * How consents reach a chain (docs/consents.md "On chain"). A chain records one opaque key per
 * (holder, verifier, purpose), while a holder may hold several consents of one triple, so what
 * is recorded is the triple's state: `live` after every grant, revocation and use, inside the
 * transaction of that change (the outbox row commits with it or not at all, DESIGN.md
 * principle 5). `consentId` is the consent that changed; a grant's transaction is that
 * consent's `blockchain_tx` (its `on_chain` once mined).
 */
export interface ConsentAnchorPort {
  changed(
    trx: Transaction<DB>,
    change: {
      holderDid: string
      verifierDid: string
      purpose: string
      consentId: string
      change: 'granted' | 'revoked' | 'used'
      live: { expiresAt: Date | null } | null
    },
  ): Promise<void>
}

export interface ConsentCheck {
  consent?: ConsentView
  valid: boolean
  reason?: string
}

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString())

/** The state of a consent at `at`; `reason` says why it is not usable (the verify errors show it). */
export function consentState(
  row: repo.ConsentRow,
  at: Date,
): { status: ConsentStatus; expired: boolean; reason?: string } {
  const used = row.used_by !== null
  const pastDate = row.expires_at !== null && new Date(row.expires_at).getTime() <= at.getTime()
  const expired = used || pastDate
  if (row.revoked) return { status: 'revoked', expired, reason: `revoked by the holder at ${iso(row.revoked_at)}` }
  if (used)
    return {
      status: 'expired',
      expired,
      reason: `the one-time consent was already used (by presentation ${row.used_by})`,
    }
  if (pastDate) return { status: 'expired', expired, reason: `expired at ${iso(row.expires_at)}` }
  return { status: 'active', expired: false }
}

/** The response shape: snake_case as stored, ISO 8601 timestamps, `expired` and `status` computed. */
export function consentView(row: repo.ConsentRow, at: Date): ConsentView {
  const { status, expired } = consentState(row, at)
  return {
    id: row.id,
    holder_did: row.holder_did,
    verifier_did: row.verifier_did,
    purpose: row.purpose,
    data_categories: row.data_categories,
    access_level: row.access_level,
    expiration_policy: row.expiration_policy,
    expires_at: iso(row.expires_at),
    revoked: row.revoked,
    revoked_at: iso(row.revoked_at),
    expired,
    status,
    used_at: iso(row.used_at),
    used_by: row.used_by,
    on_chain: row.on_chain,
    blockchain_tx: row.blockchain_tx,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  }
}

/** A DID as stored (normalised); one that does not parse is compared as given (it matches nothing). */
function storedDid(did: string): string {
  try {
    return normalizeDid(did)
  } catch {
    return did
  }
}

/**
 * Holder consents for verifiers (spec: Consent; docs/consents.md): grant, list, revoke, and
 * the ConsentPort a presentation verification consults and consumes.
 */
export class ConsentService implements ConsentPort {
  constructor(private readonly deps: { db: Database; clock: Clock; anchor?: ConsentAnchorPort }) {}

  /** Grants the consent; `claim` (an Idempotency-Key) commits with it. */
  async grant(holderDid: string, input: GrantConsentInput, claim?: ClaimKey): Promise<ConsentView> {
    const now = this.deps.clock.now()
    const policy = input.expiration_policy ?? 'indefinite'
    let expiresAt: Date | null = null
    if (policy === 'fixed_date') {
      if (input.expires_at === undefined)
        throw new ValidationError('expires_at is required when expiration_policy is fixed_date', {
          details: { field: 'expires_at' },
        })
      expiresAt = new Date(input.expires_at)
      if (Number.isNaN(expiresAt.getTime()))
        throw new ValidationError('expires_at is not a valid ISO 8601 date-time', { details: { field: 'expires_at' } })
      if (expiresAt.getTime() <= now.getTime())
        throw new ValidationError('expires_at must be in the future', { details: { field: 'expires_at' } })
    } else if (input.expires_at !== undefined) {
      throw new ValidationError(`expires_at applies only to expiration_policy fixed_date, not ${policy}`, {
        details: { field: 'expires_at' },
      })
    }
    const row: repo.NewConsent = {
      id: `consent-${randomUUID()}`,
      holder_did: holderDid,
      verifier_did: normalizeDid(input.verifier_did),
      purpose: input.purpose,
      data_categories: input.data_categories ?? [],
      access_level: input.access_level ?? 'read_only',
      expiration_policy: policy,
      expires_at: expiresAt,
      revoked_at: null,
      used_at: null,
      used_by: null,
      created_at: now,
      updated_at: now,
    }
    const created = await this.deps.db.transaction().execute(async (trx) => {
      await claimIn(trx, claim, row.id)
      const inserted = await repo.insertConsent(trx, row)
      await recordActivity(trx, {
        holder_did: holderDid,
        type: 'consent_granted',
        details: { consent_id: inserted.id, verifier_did: inserted.verifier_did, purpose: inserted.purpose },
        at: now,
      })
      await this.anchorTriple(trx, inserted, 'granted', now)
      return inserted
    })
    return this.view(created)
  }

  async get(holderDid: string, id: string): Promise<ConsentView> {
    const found = await repo.findConsent(this.deps.db, holderDid, id)
    if (!found) throw new NotFoundError('Consent not found')
    return this.view(found)
  }

  list(
    holderDid: string,
    filter: { verifier_did?: string; status?: ConsentStatus },
    page: { limit: number; after?: string },
  ): Promise<repo.ConsentRow[]> {
    const verifierDid = filter.verifier_did === undefined ? undefined : normalizeDid(filter.verifier_did)
    return repo.listConsents(
      this.deps.db,
      holderDid,
      { verifierDid, status: filter.status, at: this.deps.clock.now() },
      page,
    )
  }

  /**
   * Spec state table: granted -> revoked, by the holder. Revoking again answers the consent
   * unchanged (idempotent, `changed` false; revoked_at stays the first revocation's). Expired
   * and used consents can be revoked too: it records the withdrawal.
   */
  async revoke(holderDid: string, id: string): Promise<{ consent: ConsentView; changed: boolean }> {
    const now = this.deps.clock.now()
    const revoked = await this.deps.db.transaction().execute(async (trx) => {
      const row = await repo.markRevoked(trx, holderDid, id, now)
      if (row)
        await recordActivity(trx, {
          holder_did: holderDid,
          type: 'consent_revoked',
          details: { consent_id: row.id, verifier_did: row.verifier_did, purpose: row.purpose },
          at: now,
        })
      if (row) await this.anchorTriple(trx, row, 'revoked', now)
      return row
    })
    if (revoked) return { consent: this.view(revoked), changed: true }
    const existing = await repo.findConsent(this.deps.db, holderDid, id)
    if (!existing) throw new NotFoundError('Consent not found')
    return { consent: this.view(existing), changed: false }
  }

  view(row: repo.ConsentRow): ConsentView {
    return consentView(row, this.deps.clock.now())
  }

  /**
   * ConsentPort: the consent that decides for this holder, verifier and purpose at `at`. A usable
   * one if any (standing before one-time, then the most recent); else the most recently granted
   * one, not valid, with the reason; none when the holder never granted this verifier a consent
   * for this purpose. A consent for one purpose neither serves nor blocks another.
   */
  async check(holderDid: string, verifierDid: string, purpose: string, at: Date): Promise<ConsentCheck> {
    const found = await repo.findDecidingForTriple(
      this.deps.db,
      { holderDid: storedDid(holderDid), verifierDid: storedDid(verifierDid), purpose },
      at,
    )
    if (!found) return { valid: false }
    const { usable, ...consent } = found
    if (usable) return { consent: consentView(consent, at), valid: true }
    return { consent: consentView(consent, at), valid: false, reason: consentState(consent, at).reason ?? 'not valid' }
  }

  /**
   * ConsentPort: marks a one-time consent used by this presentation, in the caller's
   * transaction. True for exactly one caller; false when another presentation used it first,
   * it was revoked meanwhile, or it is not a one-time consent (nothing to consume).
   */
  async consume(trx: Transaction<DB>, consentId: string, presentationId: string, at: Date): Promise<boolean> {
    const used = await repo.markUsed(trx, consentId, presentationId, at)
    if (used) await this.anchorTriple(trx, { ...used, id: consentId }, 'used', at)
    return used !== undefined
  }

  /** Tells the chain what the triple's consents allow now, after a change in `trx`. */
  private async anchorTriple(
    trx: Transaction<DB>,
    consent: repo.ConsentTriple & { id: string },
    change: 'granted' | 'revoked' | 'used',
    at: Date,
  ): Promise<void> {
    if (!this.deps.anchor) return
    await repo.lockTriple(trx, consent)
    const now = await repo.liveUntil(trx, consent, at)
    await this.deps.anchor.changed(trx, {
      holderDid: consent.holder_did,
      verifierDid: consent.verifier_did,
      purpose: consent.purpose,
      consentId: consent.id,
      change,
      live: now.live ? { expiresAt: now.expiresAt } : null,
    })
  }
}
