import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import { ForbiddenError, UnauthenticatedError, ValidationError } from '../../errors.js'

/**
 * What a VC API token may do (docs/vc-api.md "Scopes"): `issue` the issuer instances' credentials,
 * `verify` credentials and presentations, update `status`. A client holds some of them; a token
 * holds those its request asked for (RFC 6749 §3.3). Listed in the order answers name them.
 */
export const VC_API_SCOPES = ['issue', 'verify', 'status'] as const
export type VcApiScope = (typeof VC_API_SCOPES)[number]

/** The OpenAPI security scheme each VC API route names its scope in: the one declaration the check reads. */
export const VC_API_SECURITY_SCHEME = 'vcApiOAuth2'

export function vcApiSecurityScheme(publicBaseUrl: string) {
  return {
    type: 'oauth2' as const,
    description: "OAuth 2.0 client credentials of an issuer profile's VC API client (docs/vc-api.md)",
    flows: {
      clientCredentials: {
        tokenUrl: `${publicBaseUrl}/oauth2/token`,
        scopes: {
          issue: 'Issue credentials as this issuer',
          verify: 'Verify credentials and presentations',
          status: 'Update the status of credentials this issuer issued',
        },
      },
    },
  }
}

/** A route's `security`: the scope it needs (in its schema, so the OpenAPI document names it too). */
export const requiresScope = (scope: VcApiScope) => [{ [VC_API_SECURITY_SCHEME]: [scope] }]

function declaredScope(schema: FastifySchema | undefined): VcApiScope | undefined {
  const security = (schema as { security?: Array<Record<string, string[]>> } | undefined)?.security
  const scopes = security?.flatMap((requirement) => requirement[VC_API_SECURITY_SCHEME] ?? []) ?? []
  return scopes.length === 1 && isScope(scopes[0]!) ? scopes[0] : undefined
}

const isScope = (value: string): value is VcApiScope => (VC_API_SCOPES as readonly string[]).includes(value)

/** Refuses, at start, a VC API route that names no scope: none can be forgotten. */
export function assertRouteDeclaresScope(route: {
  method: string | string[]
  url: string
  schema?: FastifySchema
}): void {
  if (declaredScope(route.schema)) return
  throw new Error(
    `VC API route ${String(route.method)} ${route.url} must declare its scope: schema.security = requiresScope(...)`,
  )
}

/**
 * RFC 6750 §3.1: a token without the route's scope is a 403 `insufficient_scope` naming the scope
 * needed. Runs after the auth hook has verified the token (request.vcApi).
 */
export async function checkScope(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const needed = declaredScope(request.routeOptions.schema)
  const held = request.vcApi?.scopes ?? []
  if (needed && held.includes(needed)) return
  const scope = needed ?? VC_API_SCOPES.join(' ')
  reply.header('www-authenticate', `Bearer error="insufficient_scope", scope="${scope}"`)
  const details = { oauth_error: 'insufficient_scope', scope }
  throw new ForbiddenError(`This access token lacks the scope "${scope}": ask for a token with scope=${scope}`, {
    details,
  })
}

/** RFC 6750 §3: a 401 names the Bearer scheme, and `invalid_token` when a token was sent (§3.1). */
export async function bearerChallenge(request: FastifyRequest, reply: FastifyReply, error: Error): Promise<void> {
  if (!(error instanceof UnauthenticatedError)) return
  reply.header(
    'www-authenticate',
    request.headers.authorization === undefined ? 'Bearer' : 'Bearer error="invalid_token"',
  )
}

/** A list of scopes in the canonical order, space-delimited (RFC 6749 §3.3). */
export const scopeText = (scopes: readonly string[]): string =>
  VC_API_SCOPES.filter((s) => scopes.includes(s)).join(' ')

export const scopesOf = (text: string): VcApiScope[] => VC_API_SCOPES.filter((s) => text.split(' ').includes(s))

const invalidScope = (description: string) =>
  new ValidationError(description, { details: { oauth_error: 'invalid_scope' } })

/**
 * RFC 6749 §3.3: the scopes a token request is granted. `asked` is space-delimited; omitted (or,
 * §3.2, sent empty) it is the client's own. A scope unknown or beyond the client's is invalid_scope.
 */
export function grantedScopes(clientScopes: readonly VcApiScope[], asked: string | undefined): VcApiScope[] {
  if (asked === undefined || asked === '') return [...clientScopes]
  const tokens = asked.split(' ')
  const unknown = tokens.find((token) => !isScope(token))
  if (unknown !== undefined) {
    throw invalidScope(
      `Unknown scope ${JSON.stringify(unknown)}: a space-delimited list of ${VC_API_SCOPES.join(', ')}`,
    )
  }
  const beyond = tokens.find((token) => !clientScopes.includes(token as VcApiScope))
  if (beyond !== undefined)
    throw invalidScope(`This client may not hold the scope "${beyond}"; it holds: ${scopeText(clientScopes)}`)
  return VC_API_SCOPES.filter((s) => tokens.includes(s))
}
