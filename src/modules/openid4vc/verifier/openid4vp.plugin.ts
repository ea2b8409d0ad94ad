import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ModuleContext } from '../../shared/module-context.js'
import { openid4vpRoutes } from './openid4vp.routes.js'
import { Openid4vpService } from './openid4vp.service.js'

/**
 * OpenID4VP beside the spec's requests (docs/openid4vp.md): it publishes the verifier's requests
 * and checks again the presentations it received (it fills the verifier's and the presentation
 * module's ports), and records answers through the presentation module.
 */
async function openid4vp(app: FastifyInstance, { db, clock, config }: ModuleContext): Promise<void> {
  const oid4vp = new Openid4vpService({
    db,
    clock,
    publicBaseUrl: config.publicBaseUrl,
    hosted: app.hostedDids,
    access: app.verifierAccess,
    hostedRoots: () => app.documentSigners.hostedRoots(),
    keys: app.keys,
    resolver: app.didResolver,
    verifiers: app.verifiers,
    trust: app.verifierTrust,
    presentations: app.verifierPresentations,
    verifier: app.presentationVerifier,
    formats: app.formats,
    callbacks: app.callbacks,
  })
  app.verifierOid4vp.fill(oid4vp)
  app.presentationRecheck.fill(oid4vp)
  await app.register(openid4vpRoutes, { prefix: '/openid4vp', oid4vp })
}

export const openid4vpPlugin = fp(openid4vp, {
  name: 'openid4vc-verifier',
  fastify: '5.x',
  dependencies: ['verifier', 'presentation', 'callbacks', 'identity', 'keys', 'credentials', 'certificates'],
})
