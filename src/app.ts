import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import type { ChainClient } from './adapters/chain/chain-client.js'
import { systemClock, type Clock } from './adapters/clock.js'
import type { ContentStore } from './adapters/content-store/content-store.js'
import type { DnsResolver } from './adapters/dns.js'
import type { HttpGet, HttpRequest } from './adapters/http-out/guarded-fetch.js'
import type { HttpPost } from './adapters/http-out/guarded-post.js'
import type { Config } from './config.js'
import type { BbsEngine } from './crypto/bbs/bbs-pool.js'
import type { DatabaseHandle } from './db/connect.js'
import { adminPlugin } from './modules/admin/admin.plugin.js'
import { authPlugin, sessionTokensPlugin } from './modules/auth/auth.plugin.js'
import { lookupRegisteredDid } from './modules/auth/registered-dids.js'
import { blockchainPlugin } from './modules/blockchain/blockchain.plugin.js'
import { certificatesPlugin } from './modules/certificates/certificates.plugin.js'
import { callbacksPlugin } from './modules/callbacks/callbacks.plugin.js'
import { consentPlugin } from './modules/consent/consent.plugin.js'
import { consoleRoutes } from './modules/console/console.routes.js'
import { credentialsPlugin } from './modules/credentials/credentials.plugin.js'
import type { Bbs2023Engine } from './modules/credentials/formats/registered-formats.js'
import { didPlugin } from './modules/did/did.plugin.js'
import { domainPlugin } from './modules/domain/domain.plugin.js'
import { gatewayRoutes } from './modules/gateway/gateway.routes.js'
import { healthPlugin } from './modules/health/health.plugin.js'
import { idempotencyPlugin } from './modules/idempotency/idempotency.plugin.js'
import { identityPlugin } from './modules/identity/identity.plugin.js'
import { checkInstanceSettings } from './modules/instance/instance-settings.js'
import { issuerPlugin } from './modules/issuer/issuer.plugin.js'
import { findPublicSchema, sessionStepUp } from './modules/issuer/issuer.service.js'
import { schemaContextDocuments } from './modules/issuer/schema-context-documents.js'
import { keysPlugin } from './modules/keys/keys.plugin.js'
import { hostedWalletPlugin } from './modules/openid4vc/holder/holder.plugin.js'
import { oid4vciPlugin } from './modules/openid4vc/issuer/oid4vci.plugin.js'
import { openid4vpPlugin } from './modules/openid4vc/verifier/openid4vp.plugin.js'
import { createDerivedProofVerifier } from './modules/presentation/derived-proof-verifier.js'
import { presentationPlugin } from './modules/presentation/presentation.plugin.js'
import { qrPlugin } from './modules/qr/qr.plugin.js'
import type { ModuleContext } from './modules/shared/module-context.js'
import { statisticsPlugin } from './modules/statistics/statistics.plugin.js'
import { statusListPlugin } from './modules/status-list/status-list.plugin.js'
import { vcApiTokensPlugin } from './modules/vc-api/vc-api-tokens.plugin.js'
import { vcApiPlugin } from './modules/vc-api/vc-api.plugin.js'
import { verifierPlugin } from './modules/verifier/verifier.plugin.js'
import { walletPlugin } from './modules/wallet/wallet.plugin.js'
import { databaseLifecyclePlugin } from './plugins/database-lifecycle.js'
import { createServer, httpFoundationPlugin } from './plugins/http-foundation.js'
import type { LogSink } from './plugins/log-options.js'
import { workerPoolsPlugin } from './plugins/worker-pools.js'

/** Every I/O edge, passed in so tests can swap any of them (STYLE.md). */
export interface AppDeps {
  database: DatabaseHandle
  content: ContentStore
  httpGet: HttpGet
  /** Outgoing protocol requests (OpenID4VCI/VP with other services); default the guarded request (OUTBOUND_*). */
  httpRequest?: HttpRequest
  /** DNS edge (domain TXT proofs); default the system resolver with OUTBOUND_TIMEOUT_MS. */
  dns?: DnsResolver
  /** Sender of callbacks; default the guarded POST (CALLBACK_ALLOW_PRIVATE, OUTBOUND_TIMEOUT_MS). */
  callbackPost?: HttpPost
  masterKey: Uint8Array
  /** The chain client; default viem over BLOCKCHAIN_RPC_URL when a chain is configured (docs/blockchain.md). */
  chain?: ChainClient
  /** The BBS worker pool; made (and closed) by the app when not given. */
  bbs?: BbsEngine
  /** The bbs-2023 worker pool (RDF canonicalization and IETF BBS); made (and closed) by the app when not given. */
  bbs2023?: Bbs2023Engine
  clock?: Clock
  /** false silences logging (most tests); a sink receives the service's log lines (the log-hygiene test). Default stdout. */
  logger?: false | { sink: LogSink }
}

const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

/**
 * Builds the whole service; the caller listens (server.ts) or injects (tests). Owns the database
 * handle. Each module is a plugin that declares the modules it needs and decorates the app with
 * the services others use; this lists them in an order that satisfies those declarations.
 */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const clock = deps.clock ?? systemClock
  const db = deps.database.db
  await checkInstanceSettings(db, {
    publicBaseUrl: config.publicBaseUrl,
    masterKey: deps.masterKey,
    acceptNewPublicBaseUrl: config.acceptNewPublicBaseUrl,
  })
  const app = createServer(config, deps.logger)
  const context: ModuleContext = {
    config,
    db,
    clock,
    masterKey: deps.masterKey,
    content: deps.content,
    httpGet: deps.httpGet,
  }

  // First, so the database closes after every module's own close hooks (Fastify runs them last to first).
  await app.register(databaseLifecyclePlugin, { database: deps.database, maintenanceMs: config.pgliteMaintenanceMs })
  // What every route shares; the tokens first, since the access hook checks them.
  await app.register(idempotencyPlugin, context)
  await app.register(keysPlugin, context)
  await app.register(sessionTokensPlugin, context)
  await app.register(vcApiTokensPlugin, context)
  await app.register(workerPoolsPlugin, { workers: config.bbsWorkers, bbs: deps.bbs, bbs2023: deps.bbs2023 })
  await app.register(httpFoundationPlugin, { config, db, clock, version: VERSION })

  // The modules, each after those it declares it needs.
  await app.register(healthPlugin, { ...context, version: VERSION, pingDatabase: deps.database.ping })
  await app.register(consoleRoutes, { dir: config.consoleDir })
  await app.register(certificatesPlugin, context)
  await app.register(identityPlugin, { ...context, lookupLocal: (did) => lookupRegisteredDid(db, did) })
  await app.register(didPlugin)
  await app.register(authPlugin, context)
  await app.register(gatewayRoutes, { prefix: '/api/ipfs', content: deps.content, maxBytes: config.contentMaxBytes })
  await app.register(credentialsPlugin, {
    ...context,
    local: schemaContextDocuments({ publicSchema: (id) => findPublicSchema(db, id) }, config.publicBaseUrl),
    derivedProofs: createDerivedProofVerifier({ resolver: app.didResolver, bbs: app.bbs, clock }),
  })
  await app.register(blockchainPlugin, { ...context, client: deps.chain, stepUp: sessionStepUp(db, clock) })
  await app.register(callbacksPlugin, { ...context, post: deps.callbackPost })
  await app.register(statusListPlugin, context)
  await app.register(walletPlugin, context)
  await app.register(issuerPlugin, context)
  await app.register(oid4vciPlugin, context)
  await app.register(consentPlugin, context)
  await app.register(verifierPlugin, context)
  await app.register(presentationPlugin, context)
  await app.register(openid4vpPlugin, context)
  await app.register(hostedWalletPlugin, { ...context, httpRequest: deps.httpRequest })
  await app.register(vcApiPlugin, context)
  await app.register(qrPlugin, context)
  await app.register(domainPlugin, { ...context, dns: deps.dns })
  await app.register(adminPlugin, context)
  await app.register(statisticsPlugin, context)

  return app
}
