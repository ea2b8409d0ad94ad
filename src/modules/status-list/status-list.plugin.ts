import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ModuleContext } from '../shared/module-context.js'
import { StatusChecker } from './status-check.js'
import { statusListRoutes } from './status-list.routes.js'
import { StatusListService } from './status-list.service.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The issuers' status lists (allocation, revocation, publication). */
    statusLists: StatusListService
    /** Reads the status of a credential, from this service's lists or another's. */
    statusChecker: StatusChecker
  }
}

async function statusList(app: FastifyInstance, { db, clock, config, httpGet }: ModuleContext): Promise<void> {
  const { publicBaseUrl } = config
  const identities = app.identities
  const formats = app.formats
  const statusLists = new StatusListService({
    db,
    identities,
    clock,
    publicBaseUrl,
    listFormats: { jwt: formats.statusListFormat('jwt'), ld: formats.statusListFormat('ld') },
    documentSigners: app.documentSigners,
  })
  app.decorate('statusLists', statusLists)
  app.decorate(
    'statusChecker',
    new StatusChecker({
      db,
      publicBaseUrl,
      httpGet,
      resolver: app.didResolver,
      formats,
      issuerOf: (did) => identities.issuerOf(did),
      now: () => clock.now(),
      skewSeconds: config.clockSkewSeconds,
    }),
  )
  await app.register(statusListRoutes, { prefix: '/api/status-lists', statusLists })
}

export const statusListPlugin = fp(statusList, {
  name: 'status-list',
  fastify: '5.x',
  dependencies: ['identity', 'credentials', 'certificates'],
})
