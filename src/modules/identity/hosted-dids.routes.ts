import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { NotFoundError } from '../../errors.js'
import { errorRefs } from '../shared/route-helpers.js'
import { hostedIssuerUrl, relationshipJwks } from '../did/jwt-vc-issuer.js'
import type { HostedDids } from './hosted-dids.service.js'

const tags = ['DID']
const Document = Type.Record(Type.String(), Type.Unknown())

/**
 * Public, at the origin's root (did:web spec §3.2 puts documents there): the service's own
 * did:web, each issuer's signing did:web, and the DIF DID Configuration linking them to this origin.
 */
export const hostedDidRoutes: FastifyPluginAsyncTypebox<{ hosted: HostedDids; publicBaseUrl: string }> = async (
  app,
  { hosted, publicBaseUrl },
) => {
  const json = { 'cache-control': 'public, max-age=60' }

  app.get(
    '/issuers/:id/did.json',
    {
      schema: {
        tags,
        summary: "An issuer's signing did:web document",
        security: [],
        params: Type.Object({ id: Type.String({ pattern: '^[a-f0-9]{32}$' }) }),
        response: { 200: Document, ...errorRefs(400, 404) },
      },
    },
    async (request, reply) => {
      const doc = await hosted.webDocument(request.params.id)
      if (!doc) throw new NotFoundError('No issuer DID document here')
      return reply.headers(json).type('application/did+ld+json').send(doc)
    },
  )

  app.get(
    '/verifiers/:id/did.json',
    {
      schema: {
        tags,
        summary: "A verifier's did:web document: the keys its OpenID4VP request objects are signed with",
        security: [],
        params: Type.Object({ id: Type.String({ pattern: '^[a-f0-9]{32}$' }) }),
        response: { 200: Document, ...errorRefs(400, 404) },
      },
    },
    async (request, reply) => {
      const doc = await hosted.verifierWebDocument(request.params.id)
      if (!doc) throw new NotFoundError('No verifier DID document here')
      return reply.headers(json).type('application/did+ld+json').send(doc)
    },
  )

  // SD-JWT VC §4 (JWT VC Issuer Metadata): the https issuer `<base>/issuers/<id>` publishes the keys of
  // its did:web here, each `kid` the DID URL its credentials' headers name.
  app.get(
    '/.well-known/jwt-vc-issuer/issuers/:id',
    {
      schema: {
        tags,
        summary: "An issuer's JWT VC Issuer Metadata (SD-JWT VC): its signing keys as a JWKS",
        security: [],
        params: Type.Object({ id: Type.String({ pattern: '^[a-f0-9]{32}$' }) }),
        response: { 200: Document, ...errorRefs(400, 404) },
      },
    },
    async (request, reply) => {
      const doc = await hosted.webDocument(request.params.id)
      if (!doc) throw new NotFoundError('No issuer here')
      return reply.headers(json).send({
        issuer: hostedIssuerUrl(publicBaseUrl, request.params.id),
        jwks: { keys: relationshipJwks(doc, 'assertionMethod') },
      })
    },
  )

  for (const url of ['/.well-known/did.json', '/did.json']) {
    app.get(
      url,
      { schema: { tags, summary: "The service's own did:web document", security: [], response: { 200: Document } } },
      async (_request, reply) =>
        reply
          .headers(json)
          .type('application/did+ld+json')
          .send((await hosted.document(hosted.serviceDid, true))!),
    )
  }

  app.get(
    '/.well-known/did-configuration.json',
    {
      schema: {
        tags,
        summary: 'DIF Well Known DID Configuration: Domain Linkage Credentials (JWT) of the DIDs hosted here',
        security: [],
        response: { 200: Document },
      },
    },
    async (_request, reply) => reply.headers(json).send(await hosted.didConfiguration()),
  )
}
