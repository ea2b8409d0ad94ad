import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import multipart from '@fastify/multipart'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import type { ContentStore } from './adapters/content-store/content-store.js'
import { systemClock, type Clock } from './adapters/clock.js'
import { createGuardedRequest, type HttpGet, type HttpRequest } from './adapters/http-out/guarded-fetch.js'
import { fetchApiOver } from './adapters/http-out/guarded-fetch-api.js'
import { createDnsResolver, type DnsResolver } from './adapters/dns.js'
import type { HttpPost } from './adapters/http-out/guarded-post.js'
import type { Config } from './config.js'
import { deriveKey, SecretBox } from './crypto/secret-box.js'
import type { DatabaseHandle } from './db/connect.js'
import { PgliteMaintenance } from './db/pglite-maintenance.js'
import { checkInstanceSettings } from './modules/instance/instance-settings.js'
import { callbacksPlugin } from './modules/callbacks/callbacks.plugin.js'
import { blockchainPlugin } from './modules/blockchain/blockchain.plugin.js'
import type { ChainClient } from './adapters/chain/chain-client.js'
import { adminRoutes } from './modules/admin/admin.routes.js'
import { AdminService } from './modules/admin/admin.service.js'
import { authRoutes } from './modules/auth/auth.routes.js'
import { AuthService } from './modules/auth/auth.service.js'
import { ChallengeCodec } from './modules/auth/challenge-codec.js'
import { TokenService } from './modules/auth/token-service.js'
import { deleteSpentChallengesBefore } from './modules/auth/users.repository.js'
import { foldBusiest } from './modules/statistics/statistics-counters.repository.js'
import { gatewayRoutes } from './modules/gateway/gateway.routes.js'
import { createDidResolver } from './modules/did/did-resolver.js'
import { didRoutes } from './modules/did/did.routes.js'
import { lookupRegisteredDid } from './modules/auth/registered-dids.js'
import { healthRoutes } from './modules/health/health.routes.js'
import { consoleRoutes } from './modules/console/console.routes.js'
import { issuerRoutes } from './modules/issuer/issuer.routes.js'
import { IssuerService } from './modules/issuer/issuer.service.js'
import { SigningMethodService } from './modules/issuer/signing-method.service.js'
import { SigningIdentities } from './modules/identity/signing-identities.js'
import { HostedDids } from './modules/identity/hosted-dids.service.js'
import { hostedDidRoutes } from './modules/identity/hosted-dids.routes.js'
import { legacyIssuerKeyLookup } from './modules/identity/legacy-issuer-keys.js'
import { createBbsPool, type BbsEngine } from './crypto/bbs/bbs-pool.js'
import { hpkeSealer } from './crypto/sealed-envelope.js'
import { IssuanceService } from './modules/issuer/issuance.service.js'
import { issuanceRoutes } from './modules/issuer/issuance.routes.js'
import { IdempotencyService } from './modules/idempotency/idempotency.service.js'
import { IssuedCredentialsService } from './modules/issuer/issued-credentials.service.js'
import { offerRoutes } from './modules/issuer/offers.routes.js'
import { OfferService } from './modules/issuer/offers.service.js'
import { issuerRequestRoutes } from './modules/issuer/requests.routes.js'
import { CredentialRequestService } from './modules/issuer/requests.service.js'
import { statusListRoutes } from './modules/status-list/status-list.routes.js'
import { StatusListService } from './modules/status-list/status-list.service.js'
import { credentialRequestRoutes } from './modules/wallet/credential-requests.routes.js'
import { encryptionKeyRoutes } from './modules/wallet/encryption-key.routes.js'
import { HolderKemKeys } from './modules/wallet/holder-kem-keys.js'
import { ImportedStatusRefresher } from './modules/wallet/imported-status-refresher.js'
import { walletModule } from './modules/wallet/wallet.plugin.js'
import { WalletCredentialService } from './modules/wallet/wallet-credentials.service.js'
import { hostedWalletModule } from './modules/openid4vc/holder/holder.plugin.js'
import { consentRoutes } from './modules/consent/consent.routes.js'
import { qrRoutes } from './modules/qr/qr.routes.js'
import { QrService } from './modules/qr/qr.service.js'
import { verifierRoutes } from './modules/verifier/verifier.routes.js'
import { domainRoutes } from './modules/domain/domain.routes.js'
import { DomainService } from './modules/domain/domain.service.js'
import { VerifierService } from './modules/verifier/verifier.service.js'
import { ConsentService } from './modules/consent/consent.service.js'
import { HolderPresentationService } from './modules/presentation/holder-presentations.service.js'
import { PresentationVerifier } from './modules/presentation/presentation-verifier.js'
import { anonymousProofRoutes } from './modules/presentation/anonymous-proof.routes.js'
import { AnonymousProofService } from './modules/presentation/anonymous-proof.service.js'
import { createDerivedProofVerifier } from './modules/presentation/derived-proof-verifier.js'
import { oauthTokenRoutes } from './modules/vc-api/oauth-token.routes.js'
import { Oid4vciOffers } from './modules/openid4vc/issuer/oid4vci-offers.js'
import { Oid4vciTokenService } from './modules/openid4vc/issuer/oid4vci-token.service.js'
import { Oid4vciCredentialService } from './modules/openid4vc/issuer/oid4vci-credential.service.js'
import { Oid4vciAuthorizeService } from './modules/openid4vc/issuer/oid4vci-authorize.service.js'
import { oid4vciRoutes } from './modules/openid4vc/issuer/oid4vci.routes.js'
import { IssuerContextCache } from './modules/openid4vc/issuer/oid4vci-context.js'
import { DpopFreshness } from './modules/openid4vc/issuer/oid4vci-dpop.js'
import { vcApiClientRoutes } from './modules/vc-api/vc-api-clients.routes.js'
import { VcApiClientService } from './modules/vc-api/vc-api-clients.service.js'
import { vcApiRoutes } from './modules/vc-api/vc-api.routes.js'
import { VcApiService } from './modules/vc-api/vc-api.service.js'
import { VC_API_SECURITY_SCHEME, vcApiSecurityScheme } from './modules/vc-api/vc-api-scopes.js'
import { schemaDocumentRoutes } from './modules/issuer/schema-documents.routes.js'
import { Bbs2023Pool, registeredFormats, type Bbs2023Engine } from './modules/credentials/formats/registered-formats.js'
import { schemaContextDocuments } from './modules/issuer/schema-context-documents.js'
import { bbs2023DeriveRoutes } from './modules/presentation/bbs-2023-derive.routes.js'
import { Bbs2023DeriveService } from './modules/presentation/bbs-2023-derive.service.js'
import { VerifierPresentationService } from './modules/presentation/verifier-presentations.service.js'
import { Openid4vpService } from './modules/openid4vc/verifier/openid4vp.service.js'
import { openid4vpRoutes } from './modules/openid4vc/verifier/openid4vp.routes.js'
import { verifierPresentationRoutes } from './modules/presentation/verifier-presentations.routes.js'
import { walletPresentationRoutes } from './modules/presentation/wallet-presentations.routes.js'
import { StatusChecker } from './modules/status-list/status-check.js'
import { checkStoredCredential } from './modules/presentation/stored-credential-check.js'
import { AttributeValidators } from './modules/issuer/attribute-validator.js'
import { templateRoutes } from './modules/issuer/templates.routes.js'
import { typeMetadataRoutes } from './modules/issuer/type-metadata.routes.js'
import { TemplateService } from './modules/issuer/templates.service.js'
import { HealthService } from './modules/health/health.service.js'
import { DbKeyStore } from './modules/keys/key-store.js'
import { RateLimiter } from './modules/rate-limit/rate-limiter.js'
import authPlugin from './plugins/auth.js'
import didPathParams from './plugins/did-path-params.js'
import errorHandler, { frameworkErrorReply } from './plugins/error-handler.js'
import metrics from './plugins/metrics.js'
import { finishOpenApiDocument } from './plugins/openapi-document.js'
import rateLimit from './plugins/rate-limit.js'
import routeTable from './plugins/route-table.js'
import { logOptions, RouteWords, type LogSink } from './plugins/log-options.js'
import bodyLimits from './plugins/body-limits.js'
import requestTimeouts, { serverTimeoutOptions } from './plugins/request-timeouts.js'
import jsonBody from './plugins/json-body.js'
import lingeringClose from './plugins/lingering-close.js'
import securityHeaders from './plugins/security-headers.js'
import validation from './plugins/validation.js'

/** DIDs whose statistics deltas one round of the minute's purge folds (the busiest first). */
const STATISTICS_FOLDS_PER_MINUTE = 100
// Expired idempotency keys removed per minute: more than one instance issues in a minute, so none pile up.
const IDEMPOTENCY_SWEEP_PER_MINUTE = 50_000

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
 * Builds the whole service; the caller listens (server.ts) or injects (tests). Owns the database handle.
 * Over 300 lines because this is the composition root: every module is wired here, in one place.
 */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const clock = deps.clock ?? systemClock
  const db = deps.database.db
  // Idempotency-Key on every creating POST (docs/idempotency.md); records shared by all instances.
  const idempotency = new IdempotencyService({ db, clock, ttlSeconds: config.idempotencyKeyTtlSeconds, box: new SecretBox(deps.masterKey, 'idempotency') })
  await checkInstanceSettings(db, { publicBaseUrl: config.publicBaseUrl, masterKey: deps.masterKey, acceptNewPublicBaseUrl: config.acceptNewPublicBaseUrl })
  const routeWords = new RouteWords()
  const app = Fastify({
    logger: deps.logger === false ? false : logOptions(config.logLevel, routeWords, deps.logger?.sink),
    ...serverTimeoutOptions(config),
    bodyLimit: config.bodyLimitBytes,
    // DIDs travel as path parameters; RSA and BLS did:key identifiers exceed the default 100.
    routerOptions: { maxParamLength: 4096 },
    frameworkErrors: frameworkErrorReply,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID()
    },
    return503OnClosing: true,
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    // HTTPS when configured (TLS_CERT_FILE, TLS_KEY_FILE); Fastify types an https server separately.
    ...((config.tls ? { https: config.tls } : {}) as object),
  }).withTypeProvider<TypeBoxTypeProvider>()
  // The only path words an unmatched URL may show in the log.
  app.addHook('onRoute', (route) => routeWords.add(route.url))

  const keys = new DbKeyStore(db, deps.masterKey, () => clock.now())
  const tokens = new TokenService(keys, config.publicBaseUrl, config.jwtTtlSeconds, () => clock.now())
  const codec = new ChallengeCodec(deriveKey(deps.masterKey, 'auth-challenge-mac-v1'))
  const limiters = {
    auth: new RateLimiter(db, config.rateLimitAuthPerMinute, () => clock.now().getTime()),
    resolve: new RateLimiter(db, config.rateLimitResolvePerMinute, () => clock.now().getTime()),
  }
  const bbs = deps.bbs ?? createBbsPool({ size: config.bbsWorkers })
  if (!deps.bbs) app.addHook('onClose', async () => bbs.close())
  const bbs2023 = deps.bbs2023 ?? new Bbs2023Pool(config.bbsWorkers)
  if (!deps.bbs2023) app.addHook('onClose', async () => bbs2023.close())
  const identities = new SigningIdentities({ db, keys, bbs, publicBaseUrl: config.publicBaseUrl, now: () => clock.now().getTime() })
  const hosted = new HostedDids({ db, identities, keys, clock, publicBaseUrl: config.publicBaseUrl })
  const resolver = createDidResolver({
    httpGet: deps.httpGet,
    allowHttp: config.didWebAllowHttp,
    lookupLocal: (did) => lookupRegisteredDid(db, did),
    hosted: (did, fresh) => hosted.document(did, fresh),
    legacyAssertionMethod: legacyIssuerKeyLookup(keys),
  })
  const auth = new AuthService({
    db,
    codec,
    tokens,
    resolver,
    content: deps.content,
    clock,
    challengeTtlSeconds: config.challengeTtlSeconds,
    registrableDidMethods: config.registrableDidMethods,
  })
  const health = new HealthService({
    version: VERSION,
    pingDatabase: deps.database.ping,
    content: deps.content,
    blockchainConfigured: config.blockchainRpcUrl !== undefined,
  })

  app.addSchema({
    $id: 'ErrorResponse',
    type: 'object',
    properties: {
      success: { type: 'boolean' },
      message: { type: 'string' },
      code: { type: 'string' },
      request_id: { type: 'string' },
      details: { type: 'object', additionalProperties: true },
      // RFC 6749 §5.2: the token endpoint's errors (error-handler.ts sets them from details.oauth_error).
      error: { type: 'string' },
      error_description: { type: 'string' },
    },
    required: ['success', 'message', 'code'],
  })
  // JSON and multipart only: anything else is 415 (Fastify also parses text/plain by default).
  app.removeContentTypeParser('text/plain')
  await app.register(requestTimeouts, { windowMs: config.bodyRateWindowMs, minBytesPerSecond: config.bodyMinBytesPerSecond })
  await app.register(lingeringClose)
  // Body limits first: the route table records the limit each route ends up with.
  await app.register(bodyLimits, { large: config.bodyLimitBytes, small: Math.min(config.smallBodyLimitBytes, config.bodyLimitBytes) })
  await app.register(routeTable)
  await app.register(validation)
  await app.register(jsonBody)
  await app.register(errorHandler)
  await app.register(securityHeaders, { corsOrigins: config.corsOrigins, hsts: config.publicBaseUrl.startsWith('https:') })
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Credential and Presentation Service', version: VERSION },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          adminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-Key' },
          [VC_API_SECURITY_SCHEME]: vcApiSecurityScheme(config.publicBaseUrl),
        },
      },
      security: [{ bearerAuth: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // operationIds and the main routes' examples (src/plugins/openapi-document.ts).
    transformObject: (document) => finishOpenApiDocument('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  })
  await app.register(swaggerUi, { routePrefix: '/api/docs' })
  await app.register(multipart, { limits: { fileSize: config.avatarMaxBytes, files: 1, fields: 10, fieldSize: 1024 }, throwFileSizeLimit: true })
  await app.register(metrics)
  await app.register(rateLimit, { limiters })
  await app.register(didPathParams)
  // The VC API's clients need the issuer service made below; tokens arrive only after start-up.
  await app.register(authPlugin, { tokens, adminApiKey: config.adminApiKey, vcApiTokens: { verify: (token) => vcApiClients.verify(token) } })

  await app.register(healthRoutes, { prefix: '/api/health', health })
  await app.register(consoleRoutes, { dir: config.consoleDir })
  await app.register(authRoutes, { prefix: '/api/auth', auth, publicBaseUrl: config.publicBaseUrl })
  await app.register(didRoutes, { prefix: '/api/did', resolver })
  await app.register(gatewayRoutes, { prefix: '/api/ipfs', content: deps.content, maxBytes: config.contentMaxBytes })
  await app.register(hostedDidRoutes, { hosted, publicBaseUrl: config.publicBaseUrl })
  const sealer = hpkeSealer
  const publicBaseUrl = config.publicBaseUrl
  // JSON-LD documents the service answers itself, without HTTP: its schemas' contexts (Data Integrity formats).
  const localDocuments = schemaContextDocuments({ publicSchema: (id) => issuers.publicSchema(id) }, publicBaseUrl)
  // The credential formats (docs/formats.md), registered in one place.
  const formats = registeredFormats({ resolver, httpGet: deps.httpGet, publicBaseUrl, clock, local: localDocuments, bbs2023, derivedProofs: createDerivedProofVerifier({ resolver, bbs, clock }) })
  const validators = new AttributeValidators()
  // Chain anchoring (outbox + /api/blockchain, /api/blockchain-legacy): before the services that
  // enqueue through app.chainAnchor, and before the database-closing hook. Its step-up check
  // calls the issuer service made just below, which exists before any request arrives.
  await app.register(blockchainPlugin, { db, clock, masterKey: deps.masterKey, config, client: deps.chain, stepUp: (did, sessionId) => issuers.assertSessionSteppedUp(did, sessionId), idempotency })
  const anchor = app.chainAnchor.configured ? app.chainAnchor : undefined
  const issuers = new IssuerService({ db, content: deps.content, auth, identities, clock, stepUpTtlSeconds: config.stepUpTtlSeconds, anchor })
  const vcApiClients = new VcApiClientService({ db, issuers, clock, publicBaseUrl: config.publicBaseUrl, securingFormats: formats.securingIds })
  const templates = new TemplateService({ db, issuers, validators, clock, formats })
  const statusLists = new StatusListService({ db, identities, clock, publicBaseUrl, listFormats: { jwt: formats.statusListFormat('jwt'), ld: formats.statusListFormat('ld') } })
  const holderKeys = new HolderKemKeys({ db, keys, clock })
  const issuance = new IssuanceService({ db, content: deps.content, issuers, validators, identities, formats, bbs, sealer, holderKeys, statusLists, clock, publicBaseUrl, anchor })
  const issued = new IssuedCredentialsService({ db, issuers, clock, publicBaseUrl, anchor })
  // OpenID4VCI (docs/openid4vci.md): each issuer profile is a credential issuer; its offers are published there too.
  const oid4vciContext = { identities, issuers, formats, resolver, publicBaseUrl, contexts: new IssuerContextCache(() => performance.now()) }
  const oid4vciOffers = new Oid4vciOffers({ ...oid4vciContext, db, clock, codeKey: deriveKey(deps.masterKey, 'oid4vci-pre-authorized-code-v1'), offers: (): OfferService => offers })
  const offers = new OfferService({ db, issuers, validators, clock, publicBaseUrl, formats, publication: oid4vciOffers })
  const requests = new CredentialRequestService({ db, auth, issuance, validators, clock, formats })
  await app.register(issuerRoutes, { prefix: '/api/issuer', issuers, signing: new SigningMethodService({ issuers, identities, resolver, clock }), idempotency })
  await app.register(schemaDocumentRoutes, { prefix: '/api/schemas', issuers, publicBaseUrl })
  await app.register(templateRoutes, { prefix: '/api/issuer', templates, idempotency })
  await app.register(typeMetadataRoutes, { issuers, publicBaseUrl })
  await app.register(issuanceRoutes, { prefix: '/api/issuer', issuance, issued, idempotency })
  await app.register(offerRoutes, { prefix: '/api/issuer', offers, idempotency })
  await app.register(issuerRequestRoutes, { prefix: '/api/issuer', requests })
  await app.register(credentialRequestRoutes, { prefix: '/api/wallet', requests, idempotency })
  const dpop = new DpopFreshness({ db, clock, box: new SecretBox(deps.masterKey, 'oid4vci-dpop-nonce'), skewSeconds: config.clockSkewSeconds })
  await app.register(oid4vciRoutes, {
    context: oid4vciContext,
    offers: oid4vciOffers,
    tokens: new Oid4vciTokenService({ ...oid4vciContext, db, clock, offers, dpop }),
    credentials: new Oid4vciCredentialService({ ...oid4vciContext, db, clock, offers, issuance, issued, requests, dpop }),
    authorization: new Oid4vciAuthorizeService({ ...oid4vciContext, db, clock, offers, auth }),
    dpop,
  })
  await app.register(encryptionKeyRoutes, { prefix: '/api/wallet', holderKeys })
  await app.register(statusListRoutes, { prefix: '/api/status-lists', statusLists })
  const consents = new ConsentService({
    db,
    clock,
    // Each triple's state is anchored as a salted hash of (holder, verifier, purpose): granted
    // until its latest end, or revoked once none of its consents is usable.
    anchor: anchor && {
      changed: async (trx, c) => {
        const triple = { holderDid: c.holderDid, verifierDid: c.verifierDid, purpose: c.purpose }
        // A grant names its consent only when that consent was granted; a grant after a
        // revocation restates the end of the consents that remain.
        await anchor.enqueue(trx, c.live ? { kind: 'consent-grant', ...triple, expiresAt: c.live.expiresAt, consentId: c.change === 'granted' ? c.consentId : undefined } : { kind: 'consent-revoke', ...triple, consentId: c.consentId })
      },
    },
  })
  await app.register(consentRoutes, { prefix: '/api/wallet', consents, idempotency })
  const verifiers = new VerifierService({ db, clock, publicBaseUrl })
  const statusChecker = new StatusChecker({ db, publicBaseUrl, httpGet: deps.httpGet, resolver, formats, issuerOf: (did) => identities.issuerOf(did), now: () => clock.now(), skewSeconds: config.clockSkewSeconds })
  const presentationVerifier = new PresentationVerifier({ resolver, status: statusChecker, clock, formats, skewSeconds: config.clockSkewSeconds, issuerOf: (did) => identities.issuerOf(did), local: localDocuments })
  // OpenID4VP beside the spec's requests (docs/openid4vp.md); its presentation service is made below, before any request arrives.
  const oid4vp: Openid4vpService = new Openid4vpService({ db, clock, publicBaseUrl, hosted, keys, resolver, verifiers, presentations: { recordAnswer: (...a) => verifierPresentations.recordAnswer(...a) }, verifier: presentationVerifier, formats, callbacks: () => app.callbacks })
  await app.register(verifierRoutes, { prefix: '/api/verifier', verifiers, oid4vp, idempotency })
  const wallet = new WalletCredentialService({ db, content: deps.content, sealer, holderKeys, resolver, status: statusChecker, formats, clock, publicBaseUrl, skewSeconds: config.clockSkewSeconds })
  await app.register(walletModule, {
    prefix: '/api/wallet',
    db,
    content: deps.content,
    sealer,
    holderKeys,
    wallet,
    clock,
    publicBaseUrl,
    evidenceMaxBytes: config.evidenceMaxBytes,
    evidenceAllowedTypes: config.evidenceAllowedTypes,
    shareMaxTtlSeconds: config.walletShareMaxTtlSeconds,
    idempotency,
  })
  await app.register(hostedWalletModule, {
    prefix: '/api/wallet',
    db,
    wallet,
    resolver,
    formats,
    clock,
    skewSeconds: config.clockSkewSeconds,
    protocolFetch: fetchApiOver(
      deps.httpRequest ?? createGuardedRequest({ allowPrivate: config.outboundAllowPrivate, timeoutMs: config.outboundTimeoutMs, maxBytes: 1024 * 1024, maxRedirects: 3 }),
    ),
    protocolBox: new SecretBox(deps.masterKey, 'wallet-protocol-sessions'),
    idempotency,
  })
  // Imported credentials' status lists, read again in the background (docs/wallet.md).
  if (config.walletStatusRefreshMs > 0) {
    const refresher = new ImportedStatusRefresher({ db, status: statusChecker, formats, clock, intervalMs: config.walletStatusRefreshMs, logger: app.log.child({ module: 'wallet-status' }) })
    app.addHook('onReady', async () => refresher.start())
    app.addHook('onClose', async () => refresher.stop())
  }
  // Signed webhooks: registered before the presentation routes that enqueue them, and before
  // the database-closing hook so sends in flight can still record their outcome.
  await app.register(callbacksPlugin, {
    db,
    keys,
    clock,
    allowPrivate: config.callbackAllowPrivate,
    timeoutMs: config.outboundTimeoutMs,
    pollMs: config.callbackPollMs,
    maxAttempts: config.callbackMaxAttempts,
    leaseMs: config.callbackLeaseMs,
    post: deps.callbackPost,
  })
  const callbacks = app.callbacks
  await app.register(anonymousProofRoutes, { prefix: '/api/wallet', proofs: new AnonymousProofService({ db, bbs, resolver, clock }) })
  await app.register(bbs2023DeriveRoutes, { prefix: '/api/wallet', derivation: new Bbs2023DeriveService({ db, formats, clock }) })
  await app.register(walletPresentationRoutes, { prefix: '/api/wallet', holder: new HolderPresentationService({ db, clock, verifiers, formats, callbacks }), verifiers, idempotency })
  const verifierPresentations = new VerifierPresentationService({
    db,
    clock,
    verifiers,
    verifier: presentationVerifier,
    formats,
    consents,
    callbacks,
    chain: app.chainCredentials,
    openid4vp: oid4vp,
  })
  await app.register(verifierPresentationRoutes, {
    prefix: '/api/verifier',
    presentations: verifierPresentations,
    checkCid: (cid) => checkStoredCredential({ db, content: deps.content, clock }, cid),
    idempotency,
  })
  await app.register(openid4vpRoutes, { prefix: '/openid4vp', oid4vp })
  await app.register(vcApiClientRoutes, { prefix: '/api/issuer', clients: vcApiClients, idempotency })
  await app.register(oauthTokenRoutes, { prefix: '/oauth2', clients: vcApiClients })
  const vcApi = new VcApiService({ db, identities, formats, statusLists, status: statusChecker, resolver, clock, publicBaseUrl, local: localDocuments, skewSeconds: config.clockSkewSeconds })
  await app.register(vcApiRoutes, { prefix: '/vc-api', vcApi, idempotency })
  await app.register(qrRoutes, { prefix: '/api/qr', qr: new QrService({ db, clock, publicBaseUrl, verifiers, offers }), idempotency })
  const dns = deps.dns ?? createDnsResolver({ timeoutMs: config.outboundTimeoutMs })
  await app.register(domainRoutes, { prefix: '/api/domain', domains: new DomainService({ db, clock, httpGet: deps.httpGet, dns, resolver, timeoutMs: config.outboundTimeoutMs }), idempotency })
  if (config.adminApiKey) {
    await app.register(adminRoutes, { prefix: '/api/admin', admin: new AdminService({ db, keys, registrableDidMethods: config.registrableDidMethods }), idempotency })
  }

  // Spent challenges are only needed until they would have expired anyway; the margin covers
  // clock skew between instances (a challenge must not become spendable again on another).
  const purge = setInterval(() => {
    void deleteSpentChallengesBefore(db, new Date(clock.now().getTime() - 10 * 60_000)).catch((err) => app.log.warn({ err }, 'purging spent challenges failed'))
    // Statistics deltas of DIDs nobody reads are folded too, so none grows without bound.
    void foldBusiest(db, STATISTICS_FOLDS_PER_MINUTE).catch((err) => app.log.warn({ err }, 'folding statistics counters failed'))
    void idempotency.sweep(IDEMPOTENCY_SWEEP_PER_MINUTE).catch((err) => app.log.warn({ err }, 'sweeping expired idempotency keys failed'))
  }, 60_000)
  purge.unref()
  app.addHook('onClose', async () => {
    clearInterval(purge)
  })
  // The embedded database has no autovacuum: this stands in for it (PostgreSQL runs its own).
  if (deps.database.engine === 'pglite' && config.pgliteMaintenanceMs > 0) {
    const log = app.log.child({ module: 'pglite-maintenance' })
    const maintenance = new PgliteMaintenance(db, {
      intervalMs: config.pgliteMaintenanceMs,
      onStep: (step) => log.debug(step, 'table maintained'),
      onError: (err) => log.warn({ err }, 'database maintenance failed; retrying at the next round'),
    })
    app.addHook('onReady', async () => maintenance.start())
    app.addHook('onClose', async () => maintenance.stop())
  }
  // Registered last so it runs after the rate limiter's final flush.
  app.addHook('onClose', async () => deps.database.close())
  return app
}

/** TRUST_PROXY as a hop count: trust that many proxies in front of the service. */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops
