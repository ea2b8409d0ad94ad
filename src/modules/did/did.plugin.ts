import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { didRoutes } from './did.routes.js'

/** DID resolution over HTTP (/api/did), with the resolver the identity module composes. */
async function did(app: FastifyInstance): Promise<void> {
  await app.register(didRoutes, { prefix: '/api/did', resolver: app.didResolver })
}

export const didPlugin = fp(did, { name: 'did', fastify: '5.x', dependencies: ['identity'] })
