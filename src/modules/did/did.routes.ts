import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { DidResolver } from './did-resolver.js'

/**
 * DID resolution (W3C DID Resolution: the document plus resolution and document metadata).
 * `Accept: application/did+json` or `application/did+ld+json` gets the bare document.
 */
export const didRoutes: FastifyPluginAsyncTypebox<{ resolver: DidResolver }> = async (app, { resolver }) => {
  app.get(
    '/:did',
    {
      schema: {
        tags: ['DID'],
        summary: 'Resolve a DID (did:key, did:web, DIDs registered here)',
        params: Type.Object({ did: Type.String({ minLength: 1, maxLength: 4096 }) }),
        querystring: Type.Object({
          publicKeyFormat: Type.Optional(
            Type.String({
              maxLength: 64,
              description: "did:key resolution option: JsonWebKey2020, Multikey, or the key type's suite",
            }),
          ),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            did: Type.String(),
            didDocument: Type.Record(Type.String(), Type.Unknown()),
            didResolutionMetadata: Type.Record(Type.String(), Type.Unknown()),
            didDocumentMetadata: Type.Record(Type.String(), Type.Unknown()),
          }),
          400: { $ref: 'ErrorResponse#' },
          404: { $ref: 'ErrorResponse#' },
          503: { $ref: 'ErrorResponse#' },
        },
      },
      config: { rateLimit: 'resolve' },
    },
    async (request, reply) => {
      const result = await resolver.resolve(request.params.did, {
        publicKeyFormat: request.query.publicKeyFormat,
        fresh: true,
      })
      const accept = request.headers.accept ?? ''
      const bare = /application\/did\+(ld\+)?json/.exec(accept)
      if (bare) return reply.type(`${bare[0]}; charset=utf-8`).serializer(JSON.stringify).send(result.didDocument)
      return {
        success: true,
        did: String(result.didDocument.id),
        didDocument: result.didDocument as Record<string, unknown>,
        didResolutionMetadata: result.didResolutionMetadata as unknown as Record<string, unknown>,
        didDocumentMetadata: result.didDocumentMetadata,
      }
    },
  )
}
