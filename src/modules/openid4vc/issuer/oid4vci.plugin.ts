import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { deriveKey, SecretBox } from '../../../crypto/secret-box.js'
import type { ModuleContext } from '../../shared/module-context.js'
import { Oid4vciAuthorizeService } from './oid4vci-authorize.service.js'
import { IssuerContextCache } from './oid4vci-context.js'
import { Oid4vciCredentialService } from './oid4vci-credential.service.js'
import { DpopFreshness } from './oid4vci-dpop.js'
import { Oid4vciOffers } from './oid4vci-offers.js'
import { Oid4vciTokenService } from './oid4vci-token.service.js'
import { oid4vciRoutes } from './oid4vci.routes.js'
import { Oid4vciPolicyService } from './oid4vci-policy.service.js'
import { ClientAttestations } from './oid4vci-client-attestation.js'
import { Oid4vciParService } from './oid4vci-par.service.js'
import { oid4vciPolicyRoutes } from './oid4vci-policy.routes.js'

/**
 * OpenID4VCI (docs/openid4vci.md): each issuer profile is a credential issuer; its offers are
 * published there too (it fills the issuer module's offer publication).
 */
async function oid4vci(app: FastifyInstance, { db, clock, config, masterKey }: ModuleContext): Promise<void> {
  const { issuance, issuedCredentials: issued, credentialRequests: requests, offers } = app
  const contexts = new IssuerContextCache(() => performance.now())
  const policies = new Oid4vciPolicyService({ db, clock, issuers: app.issuers, contexts })
  const context = {
    policies,
    identities: app.identities,
    issuers: app.issuers,
    formats: app.formats,
    resolver: app.didResolver,
    publicBaseUrl: config.publicBaseUrl,
    contexts,
    certificates: app.issuerCertificates,
    clock,
  }
  const publication = new Oid4vciOffers({
    ...context,
    db,
    clock,
    codeKey: deriveKey(masterKey, 'oid4vci-pre-authorized-code-v1'),
  })
  app.offerPublication.fill(publication)
  const dpop = new DpopFreshness({
    db,
    clock,
    box: new SecretBox(masterKey, 'oid4vci-dpop-nonce'),
    skewSeconds: config.clockSkewSeconds,
  })
  const attestations = new ClientAttestations({ db, clock, skewSeconds: config.clockSkewSeconds })
  const authorization = new Oid4vciAuthorizeService({ ...context, db, clock, offers, auth: app.auth })
  await app.register(oid4vciRoutes, {
    context,
    offers: publication,
    tokens: new Oid4vciTokenService({ ...context, db, clock, offers, dpop, attestations }),
    credentials: new Oid4vciCredentialService({ ...context, db, clock, offers, issuance, issued, requests, dpop }),
    authorization,
    par: new Oid4vciParService({ ...context, db, clock, authorization, attestations }),
    dpop,
  })
  await app.register(oid4vciPolicyRoutes, { prefix: '/api/issuer', policies })
}

export const oid4vciPlugin = fp(oid4vci, {
  name: 'openid4vc-issuer',
  fastify: '5.x',
  dependencies: ['issuer', 'identity', 'auth', 'credentials'],
})
