import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { DidDocument } from '../did/did-document.js'
import { createDidResolver, type DidResolver } from '../did/did-resolver.js'
import type { ModuleContext } from '../shared/module-context.js'
import { HostedDids } from './hosted-dids.service.js'
import { hostedDidRoutes } from './hosted-dids.routes.js'
import { issuerKeySource } from './issuer-key-source.js'
import { legacyIssuerKeyLookup } from './legacy-issuer-keys.js'
import { SigningIdentities } from './signing-identities.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The DIDs issuers sign as, and their keys. */
    identities: SigningIdentities
    /** The did:web documents this service hosts. */
    hostedDids: HostedDids
    /** Resolves every DID method the service reads, its own hosted DIDs included. */
    didResolver: DidResolver
  }
}

export interface IdentityPluginOptions extends ModuleContext {
  /** DIDs registered with this service (the auth module's users), for methods resolved nowhere else. */
  lookupLocal: (did: string) => Promise<DidDocument | undefined>
}

async function identity(
  app: FastifyInstance,
  { db, clock, config, httpGet, lookupLocal }: IdentityPluginOptions,
): Promise<void> {
  const { publicBaseUrl } = config
  const identities = new SigningIdentities({
    db,
    keys: app.keys,
    bbs: app.bbs,
    publicBaseUrl,
    now: () => clock.now().getTime(),
    documentSigners: app.documentSigners,
    issuerCertificates: app.issuerCertificates,
  })
  app.issuerCertificates.useKeySource(issuerKeySource(identities, app.keys, publicBaseUrl))
  const hosted = new HostedDids({ db, identities, keys: app.keys, clock, publicBaseUrl })
  app.decorate('identities', identities)
  app.decorate('hostedDids', hosted)
  app.decorate(
    'didResolver',
    createDidResolver({
      httpGet,
      allowHttp: config.didWebAllowHttp,
      lookupLocal,
      hosted: (did, fresh) => hosted.document(did, fresh),
      legacyAssertionMethod: legacyIssuerKeyLookup(app.keys),
    }),
  )
  await app.register(hostedDidRoutes, { hosted, publicBaseUrl })
}

export const identityPlugin = fp(identity, {
  name: 'identity',
  fastify: '5.x',
  dependencies: ['keys', 'worker-pools', 'certificates'],
})
