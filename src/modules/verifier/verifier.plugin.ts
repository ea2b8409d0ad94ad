import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { PortSlot } from '../../shared/port-slot.js'
import type { ModuleContext } from '../shared/module-context.js'
import { verifierRoutes } from './verifier.routes.js'
import { VerifierService } from './verifier.service.js'
import type { Oid4vpPort } from './verifier.types.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Verifier profiles, presets and presentation requests. */
    verifiers: VerifierService
    /** Where OpenID4VP publishes the verifier's requests (the openid4vc module fills it from its own plugin). */
    verifierOid4vp: PortSlot<Oid4vpPort>
  }
}

async function verifier(app: FastifyInstance, { db, clock, config }: ModuleContext): Promise<void> {
  const verifiers = new VerifierService({
    db,
    clock,
    publicBaseUrl: config.publicBaseUrl,
    presentableFormats: app.formats.dcql.map((f) => f.id),
  })
  const slot = new PortSlot<Oid4vpPort>('the OpenID4VP publication')
  const oid4vp: Oid4vpPort = {
    prepare: async (request, options) => slot.port?.prepare(request, options),
    describe: async (request) => slot.port?.describe(request),
    redeemResponseCode: async (request, code) => slot.filled.redeemResponseCode(request, code),
  }
  app.decorate('verifiers', verifiers)
  app.decorate('verifierOid4vp', slot)
  await app.register(verifierRoutes, { prefix: '/api/verifier', verifiers, oid4vp, idempotency: app.idempotency })
}

export const verifierPlugin = fp(verifier, {
  name: 'verifier',
  fastify: '5.x',
  dependencies: ['idempotency', 'credentials'],
})
