import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { UnauthenticatedError } from '../../errors.js'
import { errorRefs } from '../shared/route-helpers.js'
import { oauthError, type VcApiClientService } from './vc-api-clients.service.js'
import { acceptFormBodies } from '../../plugins/form-body.js'

const tags = ['VC API']

const TokenBody = Type.Object(
  {
    // Checked in the handler, so a missing one is RFC 6749's invalid_request rather than a bare 400.
    grant_type: Type.Optional(Type.String({ maxLength: 100 })),
    client_id: Type.Optional(Type.String({ maxLength: 200 })),
    client_secret: Type.Optional(Type.String({ maxLength: 200 })),
    scope: Type.Optional(Type.String({ maxLength: 500 })),
    // RFC 6749 §3.2: unrecognized parameters are ignored (dropped by removeAdditional).
  },
  { additionalProperties: false },
)

/**
 * The token endpoint (RFC 6749 §4.4 client credentials): a form-encoded body (§4.4.2), JSON also
 * accepted; the client authenticates with HTTP Basic or with client_id and client_secret in the
 * body (§2.3.1). Errors carry `error` and `error_description` (§5.2).
 */
export const oauthTokenRoutes: FastifyPluginAsyncTypebox<{ clients: VcApiClientService }> = async (
  app,
  { clients },
) => {
  // Only this route reads form bodies.
  acceptFormBodies(app)
  app.post(
    '/token',
    {
      // A client's secret is a credential: guesses are limited like sign-ins (per client IP).
      config: { rateLimit: 'auth' },
      schema: {
        tags,
        summary: "Exchange a VC API client's id and secret for a bearer access token (OAuth 2.0 client credentials)",
        body: TokenBody,
        description:
          "`scope`: space-delimited, some of the client's scopes (`issue`, `verify`, `status`); omitted, all of them. " +
          'The answer names the scope granted (RFC 6749 §3.3).',
        response: {
          200: Type.Object({
            access_token: Type.String(),
            token_type: Type.Literal('Bearer'),
            expires_in: Type.Integer(),
            scope: Type.String(),
          }),
          ...errorRefs(400, 401),
        },
      },
    },
    async (request, reply) => {
      if (request.body.grant_type === undefined)
        throw oauthError('invalid_request', 'grant_type is required (client_credentials)')
      if (request.body.grant_type !== 'client_credentials')
        throw oauthError('unsupported_grant_type', 'Only grant_type=client_credentials is supported')
      let token
      try {
        const basic = basicCredentials(request.headers.authorization)
        // §2.3: one authentication method per request.
        if (
          basic &&
          (request.body.client_secret !== undefined ||
            (request.body.client_id !== undefined && request.body.client_id !== basic.id))
        ) {
          throw oauthError('invalid_request', 'Use one client authentication method: HTTP Basic or the body parameters')
        }
        const clientId = basic?.id ?? request.body.client_id
        const secret = basic?.secret ?? request.body.client_secret
        if (!clientId || !secret)
          throw oauthError(
            'invalid_client',
            'Client authentication is required: HTTP Basic, or client_id and client_secret',
          )
        token = await clients.token(clientId, secret, request.body.scope)
      } catch (error) {
        // §5.2: a 401 to a client that tried HTTP authentication names the scheme it must use.
        if (error instanceof UnauthenticatedError && request.headers.authorization !== undefined) {
          reply.header('www-authenticate', 'Basic realm="oauth2"')
        }
        throw error
      }
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(token)
    },
  )
}

/** RFC 6749 §2.3.1: HTTP Basic with the form-urlencoded client id and secret. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header) : null
  if (!match) return undefined
  const text = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = text.indexOf(':')
  if (colon < 0) throw oauthError('invalid_client', 'Malformed HTTP Basic credentials')
  const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '))
  try {
    return { id: decode(text.slice(0, colon)), secret: decode(text.slice(colon + 1)) }
  } catch {
    throw oauthError('invalid_client', 'Malformed HTTP Basic credentials')
  }
}
