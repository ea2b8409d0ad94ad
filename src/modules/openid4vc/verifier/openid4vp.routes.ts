import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorRefs } from '../../shared/route-helpers.js'
import type { Openid4vpService } from './openid4vp.service.js'
import { acceptFormBodies } from '../../../plugins/form-body.js'

const tags = ['OpenID4VP']
const RequestId = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) })
/**
 * A vp_token or an encrypted response of a few credentials fits well under this. The route is
 * public, so the small body limit (SMALL_BODY_LIMIT_BYTES, 64 KiB by default) bounds the whole body.
 */
const MAX_TOKEN = 48 * 1024

/**
 * OpenID for Verifiable Presentations 1.0 (docs/openid4vp.md), public: the wallet fetches the
 * signed request object at request_uri (§5.10) and posts its Authorization Response to
 * response_uri (§8.2: form-encoded; direct_post.jwt sends `response`, an encrypted JWT).
 */
export const openid4vpRoutes: FastifyPluginAsyncTypebox<{ oid4vp: Openid4vpService }> = async (app, { oid4vp }) => {
  // Only these routes read form bodies.
  acceptFormBodies(app)

  app.get(
    '/requests/:id',
    {
      schema: {
        tags,
        summary: 'The signed request object (JAR, typ oauth-authz-req+jwt) of a presentation request',
        security: [],
        params: RequestId,
        response: { 200: Type.String(), ...errorRefs(400, 404) },
      },
    },
    async (request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .type('application/oauth-authz-req+jwt')
        .send(await oid4vp.requestObject(request.params.id)),
  )

  app.post(
    '/requests/:id',
    {
      schema: {
        tags,
        summary:
          'The request object for a wallet that POSTs its metadata and a nonce (request_uri_method post, OID4VP 1.0 §5.10.1): signed now, carrying wallet_nonce',
        security: [],
        params: RequestId,
        body: Type.Object(
          {
            wallet_metadata: Type.Optional(Type.String({ maxLength: 16_384 })),
            wallet_nonce: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.String(), ...errorRefs(400, 404, 413, 415) },
      },
    },
    async (request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .type('application/oauth-authz-req+jwt')
        .send(await oid4vp.requestObjectForWallet(request.params.id, request.body ?? {})),
  )

  app.post(
    '/responses/:id',
    {
      // Checked in the service, so what is missing or malformed is an OAuth-style error (§8.5).
      schema: {
        tags,
        summary:
          "A wallet's Authorization Response (direct_post or direct_post.jwt): 200 when the presentation is accepted, 400 with an OAuth error when it is refused",
        security: [],
        params: RequestId,
        body: Type.Object(
          {
            vp_token: Type.Optional(Type.String({ maxLength: MAX_TOKEN })),
            response: Type.Optional(Type.String({ maxLength: MAX_TOKEN })),
            state: Type.Optional(Type.String({ maxLength: 200 })),
            error: Type.Optional(Type.String({ maxLength: 200 })),
            error_description: Type.Optional(Type.String({ maxLength: 2000 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            redirect_uri: Type.Optional(Type.String()),
            presentation_id: Type.Optional(
              Type.String({
                description:
                  "absent for a wallet's error response, which is recorded (docs/openid4vp.md: it closes only a request addressed to a holder)",
              }),
            ),
          }),
          ...errorRefs(400, 404, 413, 415),
        },
      },
    },
    async (request, reply) => {
      // §8.5: the wallet reports its own error (access_denied: the holder declined) to the response endpoint; recorded, see respondWithError.
      if (request.body.error !== undefined) {
        await oid4vp.respondWithError(request.params.id, { ...request.body, error: request.body.error })
        return reply.header('cache-control', 'no-store').send({})
      }
      return reply.header('cache-control', 'no-store').send(await oid4vp.respond(request.params.id, request.body))
    },
  )
}
