import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Clock } from '../../adapters/clock.js'
import type { ContentStore } from '../../adapters/content-store/content-store.js'
import type { EnvelopeSealer } from '../../crypto/sealed-envelope.js'
import type { Database } from '../../db/database.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import type { HolderKemKeys } from './holder-kem-keys.js'
import { walletActivityRoutes } from './wallet-activity.routes.js'
import { walletCredentialRoutes } from './wallet-credentials.routes.js'
import type { WalletCredentialService } from './wallet-credentials.service.js'
import { walletEvidenceRoutes } from './wallet-evidence.routes.js'
import { WalletEvidenceService } from './wallet-evidence.service.js'
import { walletShareRoutes } from './wallet-shares.routes.js'
import { WalletShareService } from './wallet-shares.service.js'

export interface WalletModuleOptions {
  db: Database
  content: ContentStore
  sealer: EnvelopeSealer
  holderKeys: HolderKemKeys
  clock: Clock
  publicBaseUrl: string
  evidenceMaxBytes: number
  evidenceAllowedTypes: readonly string[]
  shareMaxTtlSeconds: number
  /** The holder's stored credentials (also used by the hosted wallet's OpenID4VC exchanges). */
  wallet: WalletCredentialService
  /** Idempotency-Key on the creating POSTs (import, share, evidence upload). */
  idempotency: IdempotencyService
}

/**
 * The holder's wallet (docs/wallet.md): credentials (listing, import, removal, holder-side
 * revocation), share links, evidence uploads, the activity log and statistics. Mounted at
 * /api/wallet; credential requests, consents, presentation approvals and the hosted wallet's
 * OpenID4VC exchanges (openid4vc/holder) are their own plugins.
 */
export const walletModule: FastifyPluginAsyncTypebox<WalletModuleOptions> = async (app, o) => {
  const now = () => o.clock.now()
  const wallet = o.wallet
  const shares = new WalletShareService({ db: o.db, clock: o.clock, publicBaseUrl: o.publicBaseUrl, maxTtlSeconds: o.shareMaxTtlSeconds })
  const evidence = new WalletEvidenceService({
    db: o.db,
    content: o.content,
    sealer: o.sealer,
    holderKeys: o.holderKeys,
    clock: o.clock,
    publicBaseUrl: o.publicBaseUrl,
    policy: { maxBytes: o.evidenceMaxBytes, allowedTypes: o.evidenceAllowedTypes },
  })
  await app.register(walletCredentialRoutes, { wallet, now, idempotency: o.idempotency })
  await app.register(walletShareRoutes, { shares, now, idempotency: o.idempotency })
  await app.register(walletEvidenceRoutes, { evidence, idempotency: o.idempotency })
  await app.register(walletActivityRoutes, { db: o.db, now })
}
