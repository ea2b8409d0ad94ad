import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createGuardedRequest, type HttpRequest } from '../../../adapters/http-out/guarded-fetch.js'
import { fetchApiOver } from '../../../adapters/http-out/guarded-fetch-api.js'
import { SecretBox } from '../../../crypto/secret-box.js'
import type { ModuleContext } from '../../shared/module-context.js'
import { offerAcceptanceRoutes } from './offer-acceptance.routes.js'
import { OfferAcceptanceService } from './offer-acceptance.service.js'
import { offerPreviewRoutes } from './offer-preview.routes.js'
import { OfferPreviewService } from './offer-preview.service.js'
import { presentationAnswerRoutes } from './presentation-answer.routes.js'
import { PresentationAnswerService } from './presentation-answer.service.js'
import { deleteExpiredSessions } from './protocol-sessions.repository.js'

export interface HostedWalletOptions extends ModuleContext {
  /** Outgoing protocol requests (OpenID4VCI/VP with other services); default the guarded request (OUTBOUND_*). */
  httpRequest?: HttpRequest
}

/**
 * The hosted wallet's side of OpenID4VC (docs/openid4vc.md): OpenID4VCI offers and OpenID4VP
 * requests of other services, previewed, then accepted or declined for the holder. Mounted at
 * /api/wallet beside the wallet's own routes.
 */
async function hostedWallet(
  app: FastifyInstance,
  { db, clock, config, masterKey, httpRequest }: HostedWalletOptions,
): Promise<void> {
  const now = () => clock.now()
  const { walletCredentials: wallet, didResolver: resolver, formats, idempotency } = app
  const fetch = fetchApiOver(
    httpRequest ??
      createGuardedRequest({
        allowPrivate: config.outboundAllowPrivate,
        timeoutMs: config.outboundTimeoutMs,
        maxBytes: 1024 * 1024,
        maxRedirects: 3,
      }),
  )
  // Seals the secrets of a hosted-wallet exchange between its two calls.
  const box = new SecretBox(masterKey, 'wallet-protocol-sessions')
  const acceptance = new OfferAcceptanceService({ db, wallet, resolver, fetch, box, clock })
  const previews = new OfferPreviewService({ db, resolver, fetch, clock })
  const answers = new PresentationAnswerService({
    db,
    wallet,
    formats,
    resolver,
    fetch,
    clock,
    skewSeconds: config.clockSkewSeconds,
  })
  await app.register(
    async (wallets) => {
      await wallets.register(offerAcceptanceRoutes, { acceptance, now, idempotency })
      await wallets.register(offerPreviewRoutes, { previews })
      await wallets.register(presentationAnswerRoutes, { answers, idempotency })
    },
    { prefix: '/api/wallet' },
  )
  // An exchange nobody completed is of no use once expired; its sealed token goes with it.
  const purge = setInterval(() => {
    void deleteExpiredSessions(db, now(), 1000).catch((err) =>
      app.log.warn({ err }, 'purging expired wallet exchanges failed'),
    )
  }, 60_000)
  purge.unref()
  app.addHook('onClose', async () => clearInterval(purge))
}

export const hostedWalletPlugin = fp(hostedWallet, {
  name: 'openid4vc-holder',
  fastify: '5.x',
  dependencies: ['wallet', 'identity', 'credentials', 'idempotency'],
})
