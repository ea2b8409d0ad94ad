import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Clock } from '../../../adapters/clock.js'
import type { SecretBox } from '../../../crypto/secret-box.js'
import type { Database } from '../../../db/database.js'
import type { FormatRegistry } from '../../credentials/formats/format-registry.js'
import type { DidResolver } from '../../did/did-resolver.js'
import type { IdempotencyService } from '../../idempotency/idempotency.service.js'
import type { WalletCredentialService } from '../../wallet/wallet-credentials.service.js'
import { offerAcceptanceRoutes } from './offer-acceptance.routes.js'
import { OfferAcceptanceService } from './offer-acceptance.service.js'
import { offerPreviewRoutes } from './offer-preview.routes.js'
import { OfferPreviewService } from './offer-preview.service.js'
import { presentationAnswerRoutes } from './presentation-answer.routes.js'
import { PresentationAnswerService } from './presentation-answer.service.js'
import { deleteExpiredSessions } from './protocol-sessions.repository.js'

export interface HostedWalletOptions {
  db: Database
  wallet: WalletCredentialService
  resolver: DidResolver
  formats: FormatRegistry
  clock: Clock
  /** CLOCK_SKEW_SECONDS: leeway on nbf/iat/exp of what other parties sign (credentials, request objects). */
  skewSeconds: number
  /** Outgoing protocol calls of the hosted wallet (OpenID4VCI/VP with other services): the guarded fetch. */
  protocolFetch: typeof fetch
  /** Seals the secrets of a hosted-wallet exchange between its two calls. */
  protocolBox: SecretBox
  idempotency: IdempotencyService
}

/**
 * The hosted wallet's side of OpenID4VC (docs/openid4vc.md): OpenID4VCI offers and OpenID4VP
 * requests of other services, previewed, then accepted or declined for the holder. Mounted at
 * /api/wallet beside the wallet's own routes.
 */
export const hostedWalletModule: FastifyPluginAsyncTypebox<HostedWalletOptions> = async (app, o) => {
  const now = () => o.clock.now()
  const acceptance = new OfferAcceptanceService({ db: o.db, wallet: o.wallet, resolver: o.resolver, fetch: o.protocolFetch, box: o.protocolBox, clock: o.clock })
  await app.register(offerAcceptanceRoutes, { acceptance, now, idempotency: o.idempotency })
  const previews = new OfferPreviewService({ db: o.db, resolver: o.resolver, fetch: o.protocolFetch, clock: o.clock })
  await app.register(offerPreviewRoutes, { previews })
  const answers = new PresentationAnswerService({ db: o.db, wallet: o.wallet, formats: o.formats, resolver: o.resolver, fetch: o.protocolFetch, clock: o.clock, skewSeconds: o.skewSeconds })
  await app.register(presentationAnswerRoutes, { answers, idempotency: o.idempotency })
  // An exchange nobody completed is of no use once expired; its sealed token goes with it.
  const purge = setInterval(() => {
    void deleteExpiredSessions(o.db, now(), 1000).catch((err) => app.log.warn({ err }, 'purging expired wallet exchanges failed'))
  }, 60_000)
  purge.unref()
  app.addHook('onClose', async () => clearInterval(purge))
}
