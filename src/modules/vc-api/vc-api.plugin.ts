import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ModuleContext } from '../shared/module-context.js'
import { oauthTokenRoutes } from './oauth-token.routes.js'
import { vcApiClientRoutes } from './vc-api-clients.routes.js'
import { VcApiClientService } from './vc-api-clients.service.js'
import { vcApiRoutes } from './vc-api.routes.js'
import { VcApiService } from './vc-api.service.js'

/** The W3C VC API (docs/vc-api.md): its OAuth clients (per issuer), the token endpoint and the API itself. */
async function vcApi(app: FastifyInstance, { db, clock, config }: ModuleContext): Promise<void> {
  const { publicBaseUrl } = config
  const { formats, idempotency } = app
  const clients = new VcApiClientService({
    db,
    issuers: app.issuers,
    clock,
    publicBaseUrl,
    securingFormats: formats.securingIds,
    tokens: app.vcApiTokens,
  })
  await app.register(vcApiClientRoutes, { prefix: '/api/issuer', clients, idempotency })
  await app.register(oauthTokenRoutes, { prefix: '/oauth2', clients })
  const service = new VcApiService({
    db,
    identities: app.identities,
    formats,
    statusLists: app.statusLists,
    status: app.statusChecker,
    resolver: app.didResolver,
    clock,
    publicBaseUrl,
    local: app.localDocuments,
    skewSeconds: config.clockSkewSeconds,
  })
  await app.register(vcApiRoutes, { prefix: '/vc-api', vcApi: service, idempotency })
}

export const vcApiPlugin = fp(vcApi, {
  name: 'vc-api',
  fastify: '5.x',
  dependencies: ['vc-api-tokens', 'issuer', 'identity', 'credentials', 'status-list', 'idempotency'],
})
