import { createHash } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'
import { UnauthenticatedError } from '../../errors.js'
import * as repo from './vc-api-clients.repository.js'
import { scopesOf, type VcApiScope } from './vc-api-scopes.js'

// A verified token is trusted this long without the database: a revoked client's tokens stop within it.
const VERIFIED_CACHE_MS = 10_000
const VERIFIED_CACHE_SIZE = 10_000

/** Who a VC API request acts for: the OAuth client, the issuer profile that owns it, what its token may do. */
export interface VcApiCaller {
  clientId: string
  issuerDid: string
  scopes: readonly VcApiScope[]
}

export const digest = (text: string): string => createHash('sha256').update(text).digest('hex')

/**
 * The VC API's bearer tokens as the access hook reads them: from the database, with a short cache.
 * Needs nothing but the tables, so the hook is made before the services that issue tokens.
 */
export class VcApiTokens {
  private readonly verified = new Map<string, { caller: VcApiCaller; expiresAt: number; checkedAt: number }>()

  constructor(private readonly deps: { db: Database; clock: Clock }) {}

  /** The caller a bearer token stands for, or 401. */
  async verify(token: string): Promise<VcApiCaller> {
    const now = this.deps.clock.now().getTime()
    // Keyed by the digest, like the table: no bearer token is held in memory longer than its request.
    const key = digest(token)
    const seen = this.verified.get(key)
    if (seen && now < seen.expiresAt && now - seen.checkedAt < VERIFIED_CACHE_MS) return seen.caller
    const holder = await repo.tokenHolder(this.deps.db, key, new Date(now))
    if (!holder) {
      this.verified.delete(key)
      throw new UnauthenticatedError('Invalid or expired access token: obtain one at POST /oauth2/token')
    }
    const caller = { clientId: holder.client_id, issuerDid: holder.issuer_did, scopes: scopesOf(holder.scope) }
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!)
    this.verified.set(key, { caller, expiresAt: new Date(holder.expires_at).getTime(), checkedAt: now })
    return caller
  }

  /** Drops a revoked client's cached tokens. */
  forget(clientId: string): void {
    for (const [key, entry] of this.verified) if (entry.caller.clientId === clientId) this.verified.delete(key)
  }
}
