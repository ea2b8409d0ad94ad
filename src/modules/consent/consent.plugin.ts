import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ModuleContext } from '../shared/module-context.js'
import { consentRoutes } from './consent.routes.js'
import { ConsentService } from './consent.service.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The holders' consents to verifiers (docs/consent.md). */
    consents: ConsentService
  }
}

async function consent(app: FastifyInstance, { db, clock }: ModuleContext): Promise<void> {
  const anchor = app.chainAnchor.configured ? app.chainAnchor : undefined
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
        await anchor.enqueue(
          trx,
          c.live
            ? {
                kind: 'consent-grant',
                ...triple,
                expiresAt: c.live.expiresAt,
                consentId: c.change === 'granted' ? c.consentId : undefined,
              }
            : { kind: 'consent-revoke', ...triple, consentId: c.consentId },
        )
      },
    },
  })
  app.decorate('consents', consents)
  await app.register(consentRoutes, { prefix: '/api/wallet', consents, idempotency: app.idempotency })
}

export const consentPlugin = fp(consent, {
  name: 'consent',
  fastify: '5.x',
  dependencies: ['blockchain', 'idempotency'],
})
