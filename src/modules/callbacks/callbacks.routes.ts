import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorRefs } from '../shared/route-helpers.js'
import type { CallbackOutbox } from './callback-outbox.js'

const Jwk = Type.Object({
  kty: Type.Literal('OKP'),
  crv: Type.Literal('Ed25519'),
  x: Type.String(),
  kid: Type.String(),
  alg: Type.Literal('EdDSA'),
  use: Type.Literal('sig'),
})

/** Public: the keys that sign callbacks, so receivers verify them with public information only. */
export const callbackRoutes: FastifyPluginAsyncTypebox<{ outbox: Pick<CallbackOutbox, 'jwks'> }> = async (
  app,
  { outbox },
) => {
  app.get(
    '/jwks',
    {
      schema: {
        tags: ['Callbacks'],
        summary: 'JWK Set (RFC 7517) of the Ed25519 keys that sign callbacks (the X-Signature detached JWS)',
        security: [],
        response: { 200: Type.Object({ keys: Type.Array(Jwk) }), ...errorRefs(503) },
      },
    },
    async (_request, reply) => {
      // Short caching: after a rotation receivers see the new key within a minute (and should
      // refetch on an unknown kid anyway).
      reply.header('cache-control', 'public, max-age=60').type('application/jwk-set+json')
      return outbox.jwks()
    },
  )
}
