import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { hpkeSealer } from '../../crypto/sealed-envelope.js'
import type { ModuleContext } from '../shared/module-context.js'
import { encryptionKeyRoutes } from './encryption-key.routes.js'
import { HolderKemKeys } from './holder-kem-keys.js'
import { ImportedStatusRefresher } from './imported-status-refresher.js'
import { walletActivityRoutes } from './wallet-activity.routes.js'
import { walletCredentialRoutes } from './wallet-credentials.routes.js'
import { WalletCredentialService } from './wallet-credentials.service.js'
import { walletEvidenceRoutes } from './wallet-evidence.routes.js'
import { WalletEvidenceService } from './wallet-evidence.service.js'
import { walletShareRoutes } from './wallet-shares.routes.js'
import { WalletShareService } from './wallet-shares.service.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The holders' KEM keys: credentials and evidence are sealed to them. */
    holderKeys: HolderKemKeys
    /** The holder's stored credentials (also used by the hosted wallet's OpenID4VC exchanges). */
    walletCredentials: WalletCredentialService
  }
}

/**
 * The holder's wallet (docs/wallet.md): credentials (listing, import, removal, holder-side
 * revocation), share links, evidence uploads, the activity log, statistics and the encryption
 * key, mounted at /api/wallet; imported credentials' status lists are read again in the
 * background. Credential requests, consents, presentation approvals and the hosted wallet's
 * OpenID4VC exchanges (openid4vc/holder) are their own plugins.
 */
async function walletModule(app: FastifyInstance, { db, content, clock, config }: ModuleContext): Promise<void> {
  const { publicBaseUrl } = config
  const now = () => clock.now()
  const idempotency = app.idempotency
  const holderKeys = new HolderKemKeys({ db, keys: app.keys, clock })
  const status = app.statusChecker
  const formats = app.formats
  const wallet = new WalletCredentialService({
    db,
    content,
    sealer: hpkeSealer,
    holderKeys,
    resolver: app.didResolver,
    status,
    formats,
    clock,
    publicBaseUrl,
    skewSeconds: config.clockSkewSeconds,
  })
  app.decorate('holderKeys', holderKeys)
  app.decorate('walletCredentials', wallet)
  const shares = new WalletShareService({ db, clock, publicBaseUrl, maxTtlSeconds: config.walletShareMaxTtlSeconds })
  const evidence = new WalletEvidenceService({
    db,
    content,
    sealer: hpkeSealer,
    holderKeys,
    clock,
    publicBaseUrl,
    policy: { maxBytes: config.evidenceMaxBytes, allowedTypes: config.evidenceAllowedTypes },
  })
  await app.register(
    async (wallets) => {
      await wallets.register(encryptionKeyRoutes, { holderKeys })
      await wallets.register(walletCredentialRoutes, { wallet, now, idempotency })
      await wallets.register(walletShareRoutes, { shares, now, idempotency })
      await wallets.register(walletEvidenceRoutes, { evidence, idempotency })
      await wallets.register(walletActivityRoutes, { db, now })
    },
    { prefix: '/api/wallet' },
  )
  if (config.walletStatusRefreshMs > 0) {
    const refresher = new ImportedStatusRefresher({
      db,
      status,
      formats,
      clock,
      intervalMs: config.walletStatusRefreshMs,
      logger: app.log.child({ module: 'wallet-status' }),
    })
    app.addHook('onReady', async () => refresher.start())
    app.addHook('onClose', async () => refresher.stop())
  }
}

export const walletPlugin = fp(walletModule, {
  name: 'wallet',
  fastify: '5.x',
  dependencies: ['keys', 'idempotency', 'identity', 'credentials', 'status-list'],
})
