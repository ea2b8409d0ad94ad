import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { decodeCompactJws } from '../../crypto/jws.js'
import { errorRefs } from '../shared/route-helpers.js'
import type { StatusListService } from './status-list.service.js'
import { asksForCwt } from './status-list-accept.js'
import { STATUS_LIST_JWT_MEDIA_TYPE } from './token-status-list.js'
import { STATUS_LIST_CWT_MEDIA_TYPE } from './token-status-list-cwt.js'

/**
 * Public: GET /api/status-lists/:id answers the status-list credential as a compact VCDM 2.0
 * `vc+jwt` (`application/vc+jwt`, what a `statusListCredential` URL dereferences to); `?format=json`
 * wraps it with its decoded payload for people and simple clients.
 */
export const statusListRoutes: FastifyPluginAsyncTypebox<{ statusLists: StatusListService }> = async (
  app,
  { statusLists },
) => {
  app.get(
    '/:id',
    {
      schema: {
        tags: ['Status lists'],
        summary: 'A W3C Bitstring Status List credential (VCDM 2.0 vc+jwt signed by the issuer)',
        security: [],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$' }) }),
        querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('jwt'), Type.Literal('json')])) }),
        response: errorRefs(400, 404),
      },
    },
    async (request, reply) => {
      const { jwt, version } = await statusLists.credential(request.params.id)
      // Short caching: a revocation must become visible to verifiers quickly.
      reply.header('cache-control', 'public, max-age=30').header('etag', `"${request.params.id}-${version}"`)
      // The payload is the credential (VC-JOSE-COSE §3.1.1), with `iss` and `iat` beside its properties.
      if (request.query.format === 'json') return { success: true, jwt, credential: decodeCompactJws(jwt)!.payload }
      return reply.type('application/vc+jwt').send(jwt)
    },
  )

  app.get(
    '/:id/ld',
    {
      schema: {
        tags: ['Status lists'],
        summary:
          'The same list as a JSON-LD Bitstring Status List credential secured with Data Integrity (eddsa-rdfc-2022), what Data Integrity credentials reference',
        security: [],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$' }) }),
        response: errorRefs(400, 404),
      },
    },
    async (request, reply) => {
      const { document, version } = await statusLists.ldCredential(request.params.id)
      reply.header('cache-control', 'public, max-age=30').header('etag', `"${request.params.id}-${version}-ld"`)
      return reply.type('application/vc+ld+json').send(JSON.stringify(document))
    },
  )

  app.get(
    '/:id/token',
    {
      schema: {
        tags: ['Status lists'],
        summary:
          'The same list as an IETF Token Status List: statuslist+jwt (ES256, issuer key), what SD-JWT VCs reference, or with Accept: application/statuslist+cwt a COSE_Sign1 CWT (ES256, the mdoc Document Signer with x5chain), what mdocs reference',
        security: [],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$' }) }),
        response: errorRefs(400, 404),
      },
    },
    async (request, reply) => {
      // One URI, two forms (draft-ietf-oauth-status-list §8.2): caches must key on Accept.
      reply.header('vary', 'accept')
      if (asksForCwt(request.headers.accept)) {
        const { cwt, version, signedAt } = await statusLists.tokenCwt(request.params.id)
        reply
          .header('cache-control', 'public, max-age=30')
          .header('etag', `"${request.params.id}-${version}-${signedAt}-cwt"`)
        return reply.type(STATUS_LIST_CWT_MEDIA_TYPE).send(Buffer.from(cwt))
      }
      const { jwt, version, signedAt } = await statusLists.token(request.params.id)
      reply
        .header('cache-control', 'public, max-age=30')
        .header('etag', `"${request.params.id}-${version}-${signedAt}"`)
      return reply.type(STATUS_LIST_JWT_MEDIA_TYPE).send(jwt)
    },
  )
}
