import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { PortSlot } from '../../shared/port-slot.js'
import type { ModuleContext } from '../shared/module-context.js'
import { anonymousProofRoutes } from './anonymous-proof.routes.js'
import { AnonymousProofService } from './anonymous-proof.service.js'
import { bbs2023DeriveRoutes } from './bbs-2023-derive.routes.js'
import { Bbs2023DeriveService } from './bbs-2023-derive.service.js'
import { HolderPresentationService } from './holder-presentations.service.js'
import type { Openid4vpRecheckPort } from './presentation-ports.js'
import { PresentationVerifier } from './presentation-verifier.js'
import { checkStoredCredential } from './stored-credential-check.js'
import { verifierPresentationRoutes } from './verifier-presentations.routes.js'
import { VerifierPresentationService } from './verifier-presentations.service.js'
import { walletPresentationRoutes } from './wallet-presentations.routes.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Checks a presentation and its credentials (proofs, status, requirements). */
    presentationVerifier: PresentationVerifier
    /** The verifier's presentations: submitted, checked, recorded. */
    verifierPresentations: VerifierPresentationService
    /** How a presentation that came over OpenID4VP is checked again (the openid4vc module fills it from its own plugin). */
    presentationRecheck: PortSlot<Openid4vpRecheckPort>
  }
}

/** Presentations (docs/presentations.md): the holder's approvals and proofs, the verifier's checks and records. */
async function presentation(app: FastifyInstance, { db, clock, config, content }: ModuleContext): Promise<void> {
  const { formats, verifiers, callbacks, idempotency } = app
  const resolver = app.didResolver
  const identities = app.identities
  const verifier = new PresentationVerifier({
    resolver,
    status: app.statusChecker,
    clock,
    formats,
    skewSeconds: config.clockSkewSeconds,
    issuerOf: (did) => identities.issuerOf(did),
    local: app.localDocuments,
  })
  const recheck = new PortSlot<Openid4vpRecheckPort>('the OpenID4VP recheck')
  const presentations = new VerifierPresentationService({
    db,
    clock,
    verifiers,
    verifier,
    formats,
    consents: app.consents,
    callbacks,
    chain: app.chainCredentials,
    openid4vp: { recheck: async (presentation, request) => recheck.port?.recheck(presentation, request) },
  })
  app.decorate('presentationVerifier', verifier)
  app.decorate('verifierPresentations', presentations)
  app.decorate('presentationRecheck', recheck)
  await app.register(
    async (wallets) => {
      await wallets.register(anonymousProofRoutes, {
        proofs: new AnonymousProofService({ db, bbs: app.bbs, resolver, clock }),
      })
      await wallets.register(bbs2023DeriveRoutes, { derivation: new Bbs2023DeriveService({ db, formats, clock }) })
      await wallets.register(walletPresentationRoutes, {
        holder: new HolderPresentationService({ db, clock, verifiers, formats: app.formats, callbacks }),
        verifiers,
        idempotency,
      })
    },
    { prefix: '/api/wallet' },
  )
  await app.register(verifierPresentationRoutes, {
    prefix: '/api/verifier',
    presentations,
    checkCid: (cid) => checkStoredCredential({ db, content, clock }, cid),
    idempotency,
  })
}

export const presentationPlugin = fp(presentation, {
  name: 'presentation',
  fastify: '5.x',
  dependencies: [
    'verifier',
    'consent',
    'callbacks',
    'blockchain',
    'identity',
    'credentials',
    'status-list',
    'worker-pools',
    'idempotency',
  ],
})
