import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'
import { NotFoundError } from '../../errors.js'
import type { ChainAnchor } from '../blockchain/chain-anchor.js'
import { credentialView } from '../credentials/credential-view.js'
import * as credentials from '../credentials/credentials.service.js'
import type { CredentialFilter, CredentialRow } from '../credentials/credentials.types.js'
import type { IssuerService } from './issuer.service.js'
import { readStatistics } from '../statistics/statistics.service.js'
import { count, total } from '../statistics/statistics.types.js'
import { countActiveOffers } from './offers.repository.js'

/** The issuer's view of what it issued: listing, one record, revocation, statistics. */
export class IssuedCredentialsService {
  constructor(
    private readonly deps: {
      db: Database
      issuers: IssuerService
      clock: Clock
      publicBaseUrl: string
      anchor?: ChainAnchor
    },
  ) {}

  async list(issuerDid: string, filter: CredentialFilter, page: { limit: number; after?: string }) {
    const issuer = await this.deps.issuers.profile(issuerDid)
    const rows = await credentials.listIssuedCredentials(this.deps.db, issuerDid, filter, page)
    return rows.map((row) => ({ ...this.view(row, issuer.name), id: row.id }))
  }

  async get(issuerDid: string, id: string) {
    const issuer = await this.deps.issuers.profile(issuerDid)
    const row = await credentials.findIssuedCredential(this.deps.db, issuerDid, id)
    if (!row) throw new NotFoundError('Credential not found')
    return this.view(row, issuer.name)
  }

  /**
   * Spec state table: the record changes first, with its status-list bit in the same
   * transaction; revoking a revoked credential answers it unchanged (idempotent). On-chain
   * revocation joins here through the outbox once a chain is configured (blockchain issue).
   * `sessionId`: the caller's token jti, for the step-up check.
   */
  async revoke(
    issuerDid: string,
    id: string,
    reason: string | null,
    sessionId?: string,
  ): Promise<{ row: CredentialRow; changed: boolean }> {
    await this.deps.issuers.steppedUpProfile(issuerDid, sessionId)
    const now = this.deps.clock.now()
    // Record and status bit change in one statement (markRevoked); with a chain, the revocation
    // job commits with them (record first, chain after: the spec's state table).
    const anchor = this.deps.anchor?.configured ? this.deps.anchor : undefined
    const result = anchor
      ? await this.deps.db.transaction().execute(async (trx) => {
          const revoked = await credentials.markRevoked(trx, issuerDid, id, reason, now)
          if (revoked)
            await anchor.enqueue(trx, {
              kind: 'revocation',
              issuerDid,
              credentialHash: revoked.credential_hash,
              credentialId: revoked.id,
            })
          return revoked
        })
      : await credentials.markRevoked(this.deps.db, issuerDid, id, reason, now)
    if (result) this.deps.anchor?.nudge()
    if (result) return { row: result, changed: true }
    const existing = await credentials.findIssuedCredential(this.deps.db, issuerDid, id)
    if (!existing) throw new NotFoundError('Credential not found')
    return { row: existing, changed: false }
  }

  async statistics(issuerDid: string) {
    await this.deps.issuers.profile(issuerDid)
    // Counters kept by the database's triggers; active offers depend on the time, so they are
    // counted along the index of the issuer's active offers.
    const [counters, offers] = await Promise.all([
      readStatistics(this.deps.db, issuerDid, ['issued.status', 'issued.type', 'requests.status']),
      countActiveOffers(this.deps.db, issuerDid, this.deps.clock.now()),
    ])
    return {
      issued: total(counters, 'issued.status'),
      active: count(counters, 'issued.status', 'active'),
      revoked: count(counters, 'issued.status', 'revoked'),
      by_type: counters.get('issued.type')!,
      requests_pending: count(counters, 'requests.status', 'pending'),
      requests_approved: count(counters, 'requests.status', 'approved'),
      requests_rejected: count(counters, 'requests.status', 'rejected'),
      offers_active: offers,
    }
  }

  private view(row: CredentialRow, issuerName: string) {
    return credentialView(row, issuerName, this.deps.publicBaseUrl)
  }
}
