import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Clock } from '../../adapters/clock.js'
import type { ContentStore } from '../../adapters/content-store/content-store.js'
import type { EnvelopeSealer } from '../../crypto/sealed-envelope.js'
import type { SecretBox } from '../../crypto/secret-box.js'
import type { Database } from '../../db/database.js'
import type { DidResolver } from '../did/did-resolver.js'
import type { StatusChecker } from '../status-list/status-check.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import type { HolderKemKeys } from './holder-kem-keys.js'
import { offerAcceptanceRoutes } from './oid4vc/offer-acceptance.routes.js'
import { OfferAcceptanceService } from './oid4vc/offer-acceptance.service.js'
import { offerPreviewRoutes } from './oid4vc/offer-preview.routes.js'
import { OfferPreviewService } from './oid4vc/offer-preview.service.js'
import { deleteExpiredSessions } from './oid4vc/protocol-sessions.repository.js'
import { presentationAnswerRoutes } from './oid4vc/presentation-answer.routes.js'
import { PresentationAnswerService } from './oid4vc/presentation-answer.service.js'
import { walletActivityRoutes } from './wallet-activity.routes.js'
import { walletCredentialRoutes } from './wallet-credentials.routes.js'
import { WalletCredentialService } from './wallet-credentials.service.js'
import { walletEvidenceRoutes } from './wallet-evidence.routes.js'
import { WalletEvidenceService } from './wallet-evidence.service.js'
import { walletShareRoutes } from './wallet-shares.routes.js'
import { WalletShareService } from './wallet-shares.service.js'

export interface WalletModuleOptions {
  db: Database
  content: ContentStore
  sealer: EnvelopeSealer
  holderKeys: HolderKemKeys
  resolver: DidResolver
  status: StatusChecker
  formats: FormatRegistry
  clock: Clock
  publicBaseUrl: string
  evidenceMaxBytes: number
  evidenceAllowedTypes: readonly string[]
  shareMaxTtlSeconds: number
  /** CLOCK_SKEW_SECONDS: leeway on nbf/iat/exp of what other parties sign (credentials, request objects). */
  skewSeconds: number
  /** Outgoing protocol calls of the hosted wallet (OpenID4VCI/VP with other services): the guarded fetch. */
  protocolFetch: typeof fetch
  /** Seals the secrets of a hosted-wallet exchange between its two calls. */
  protocolBox: SecretBox
  /** Idempotency-Key on the creating POSTs (import, share, evidence upload). */
  idempotency: IdempotencyService
}

/**
 * The holder's wallet (docs/wallet.md): credentials (listing, import, removal, holder-side
 * revocation), share links, evidence uploads, the activity log and statistics, and OpenID4VCI
 * offers and OpenID4VP requests of other services, answered for the holder. Mounted at
 * /api/wallet; credential requests, consents and presentation approvals are their own plugins.
 */
export const walletModule: FastifyPluginAsyncTypebox<WalletModuleOptions> = async (app, o) => {
  const now = () => o.clock.now()
  const wallet = new WalletCredentialService({ db: o.db, content: o.content, sealer: o.sealer, holderKeys: o.holderKeys, resolver: o.resolver, status: o.status, formats: o.formats, clock: o.clock, publicBaseUrl: o.publicBaseUrl, skewSeconds: o.skewSeconds })
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
  const acceptance = new OfferAcceptanceService({ db: o.db, wallet, resolver: o.resolver, fetch: o.protocolFetch, box: o.protocolBox, clock: o.clock })
  await app.register(offerAcceptanceRoutes, { acceptance, now, idempotency: o.idempotency })
  const previews = new OfferPreviewService({ db: o.db, resolver: o.resolver, fetch: o.protocolFetch, clock: o.clock })
  await app.register(offerPreviewRoutes, { previews })
  const answers = new PresentationAnswerService({ db: o.db, wallet, formats: o.formats, resolver: o.resolver, fetch: o.protocolFetch, clock: o.clock, skewSeconds: o.skewSeconds })
  await app.register(presentationAnswerRoutes, { answers, idempotency: o.idempotency })
  // An exchange nobody completed is of no use once expired; its sealed token goes with it.
  const purge = setInterval(() => {
    void deleteExpiredSessions(o.db, now(), 1000).catch((err) => app.log.warn({ err }, 'purging expired wallet exchanges failed'))
  }, 60_000)
  purge.unref()
  app.addHook('onClose', async () => clearInterval(purge))
}
