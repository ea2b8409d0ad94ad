import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { hpkeSealer } from '../../crypto/sealed-envelope.js'
import { PortSlot } from '../../shared/port-slot.js'
import type { ModuleContext } from '../shared/module-context.js'
import { AttributeValidators } from './attribute-validator.js'
import { credentialRequestRoutes } from './credential-requests.routes.js'
import { issuanceRoutes } from './issuance.routes.js'
import { IssuanceService } from './issuance.service.js'
import { IssuedCredentialsService } from './issued-credentials.service.js'
import { issuerRoutes } from './issuer.routes.js'
import { IssuerService } from './issuer.service.js'
import { offerRoutes } from './offers.routes.js'
import { OfferService, type OfferPublication } from './offers.service.js'
import { issuerRequestRoutes } from './requests.routes.js'
import { CredentialRequestService } from './requests.service.js'
import { schemaDocumentRoutes } from './schema-documents.routes.js'
import { SigningMethodService } from './signing-method.service.js'
import { templateRoutes } from './templates.routes.js'
import { TemplateService } from './templates.service.js'
import { schemaPresetRoutes } from './schema-presets.routes.js'
import { typeMetadataRoutes } from './type-metadata.routes.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Issuer profiles, their schemas and step-ups. */
    issuers: IssuerService
    issuance: IssuanceService
    issuedCredentials: IssuedCredentialsService
    offers: OfferService
    credentialRequests: CredentialRequestService
    /** Where a standard protocol publishes the issuer's offers (OpenID4VCI fills it from its own plugin). */
    offerPublication: PortSlot<OfferPublication>
  }
}

/** Issuer profiles, schemas, templates, issuance, offers and credential requests (docs/issuer.md). */
async function issuer(app: FastifyInstance, { db, content, clock, config }: ModuleContext): Promise<void> {
  const { publicBaseUrl } = config
  const { identities, formats, idempotency } = app
  const resolver = app.didResolver
  const anchor = app.chainAnchor.configured ? app.chainAnchor : undefined
  const validators = new AttributeValidators()
  const issuers = new IssuerService({
    db,
    content,
    auth: app.auth,
    identities,
    clock,
    stepUpTtlSeconds: config.stepUpTtlSeconds,
    anchor,
  })
  const templates = new TemplateService({ db, issuers, validators, clock, formats })
  const issuance = new IssuanceService({
    db,
    content,
    issuers,
    validators,
    identities,
    formats,
    bbs: app.bbs,
    sealer: hpkeSealer,
    holderKeys: app.holderKeys,
    statusLists: app.statusLists,
    clock,
    publicBaseUrl,
    anchor,
  })
  const issued = new IssuedCredentialsService({ db, issuers, clock, publicBaseUrl, anchor })
  const publication = new PortSlot<OfferPublication>('the offer publication')
  const offers = new OfferService({
    db,
    issuers,
    validators,
    clock,
    publicBaseUrl,
    formats,
    publication: {
      prepare: async (offer) => publication.port?.prepare(offer),
      answerAgain: async (offer, secret) => publication.port?.answerAgain(offer, secret) ?? {},
    },
  })
  const requests = new CredentialRequestService({ db, auth: app.auth, issuance, validators, clock, formats })
  app.decorate('issuers', issuers)
  app.decorate('issuance', issuance)
  app.decorate('issuedCredentials', issued)
  app.decorate('offers', offers)
  app.decorate('credentialRequests', requests)
  app.decorate('offerPublication', publication)
  await app.register(issuerRoutes, {
    prefix: '/api/issuer',
    issuers,
    signing: new SigningMethodService({ issuers, identities, resolver, clock }),
    idempotency,
  })
  await app.register(schemaDocumentRoutes, { prefix: '/api/schemas', issuers, publicBaseUrl })
  await app.register(templateRoutes, { prefix: '/api/issuer', templates, idempotency })
  await app.register(typeMetadataRoutes, { issuers, publicBaseUrl })
  await app.register(schemaPresetRoutes, { formats })
  await app.register(issuanceRoutes, { prefix: '/api/issuer', issuance, issued, idempotency })
  await app.register(offerRoutes, { prefix: '/api/issuer', offers, idempotency })
  await app.register(issuerRequestRoutes, { prefix: '/api/issuer', requests })
  await app.register(credentialRequestRoutes, { prefix: '/api/wallet', requests, idempotency })
}

export const issuerPlugin = fp(issuer, {
  name: 'issuer',
  fastify: '5.x',
  dependencies: ['identity', 'auth', 'credentials', 'blockchain', 'status-list', 'wallet', 'idempotency'],
})
