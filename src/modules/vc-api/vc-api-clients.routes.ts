import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs } from '../shared/route-helpers.js'
import type { VcApiClientService } from './vc-api-clients.service.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schemas.js'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { keyedRequest } from '../idempotency/keyed-request.js'
import { VC_API_SCOPES } from './vc-api-scopes.js'

const tags = ['VC API']
const Scopes = Type.Array(Type.Union(VC_API_SCOPES.map((scope) => Type.Literal(scope))), {
  minItems: 1,
  maxItems: VC_API_SCOPES.length,
  uniqueItems: true,
})
const Client = Type.Object({
  client_id: Type.String(),
  name: Type.String(),
  scopes: Scopes,
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
})

const Endpoints = Type.Object({
  token: Type.String(),
  issue: Type.Record(Type.String(), Type.String()),
  status: Type.String(),
  verify: Type.String(),
  presentations_verify: Type.String(),
})

/** An issuer's VC API clients (docs/vc-api.md "Authentication"); the `:did` is the caller's own. */
export const vcApiClientRoutes: FastifyPluginAsyncTypebox<{
  clients: VcApiClientService
  idempotency: IdempotencyService
}> = async (app, { clients, idempotency }) => {
  app.post(
    '/:did/vc-api/clients',
    {
      schema: {
        tags,
        summary:
          'Create an OAuth 2.0 client of this issuer profile for the W3C VC API; its secret is shown only in this answer. Needs step-up when required',
        description:
          '`scopes`: what its tokens may do (`issue`, `verify`, `status`; all three when omitted). ' +
          'Optional `Idempotency-Key` header (docs/idempotency.md): a retry with the same key and body answers the first 201, ' +
          'its client_secret included.',
        params: Type.Object({ did: Did }),
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            scopes: Type.Optional(Scopes),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            client: Type.Composite([Client, Type.Object({ client_secret: Type.String(), endpoints: Endpoints })]),
          }),
          ...errorRefs(400, 401, 403, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const { did, jti } = request.auth!
      const { body: client } = await idempotency.run(
        keyedRequest(request),
        (claim) => clients.create(did, request.body.name, request.body.scopes, jti, claim),
        (clientId, secret) => clients.replay(did, clientId, secret, jti),
      )
      return reply.status(201).send({ success: true, client })
    },
  )

  app.get(
    '/:did/vc-api/clients',
    {
      schema: {
        tags,
        summary: "This issuer profile's VC API clients (never their secrets)",
        params: Type.Object({ did: Did }),
        response: {
          200: Type.Object({ success: Type.Boolean(), clients: Type.Array(Client) }),
          ...errorRefs(401, 403, 404),
        },
      },
    },
    async (request) => ({ success: true, clients: await clients.list(request.auth!.did) }),
  )

  app.delete(
    '/:did/vc-api/clients/:client_id',
    {
      schema: {
        tags,
        summary: 'Revoke a VC API client: its tokens stop working. Needs step-up when required',
        params: Type.Object({ did: Did, client_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String() }),
          ...errorRefs(401, 403, 404),
        },
      },
    },
    async (request) => {
      await clients.revoke(request.auth!.did, request.params.client_id, request.auth!.jti)
      return { success: true, message: 'Client revoked' }
    },
  )
}
