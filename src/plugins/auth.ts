import { timingSafeEqual, createHash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ForbiddenError, NotFoundError, UnauthenticatedError } from '../errors.js'
import type { AccessClaims, TokenService } from '../modules/auth/token-service.js'
import { normalizeDid } from '../modules/did/did-normalize.js'
import type { VcApiCaller } from '../modules/vc-api/vc-api-clients.service.js'
import { accessOf } from './route-access.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on every route that needs a session token. */
    auth?: AccessClaims
    /** Set on the VC API routes: the OAuth client and the issuer it acts for. */
    vcApi?: VcApiCaller
  }
}

export interface AuthPluginOptions {
  tokens: TokenService
  adminApiKey: string | undefined
  /** Verifies the VC API's OAuth 2.0 access tokens. */
  vcApiTokens: { verify(token: string): Promise<VcApiCaller> }
}

/**
 * One hook for every route: public routes pass, admin routes need the admin key, the rest need
 * a valid session token whose DID matches the `:did` path segment and the X-User-DID header
 * (DESIGN.md "Ownership": a different DID is 403). Runs onRequest, before body parsing, so an
 * unauthenticated caller costs no parsing or validation.
 */
async function authPlugin(app: FastifyInstance, options: AuthPluginOptions): Promise<void> {
  const adminDigest = options.adminApiKey ? sha256(options.adminApiKey) : undefined

  app.addHook('onRequest', async (request) => {
    const access = accessOf(request.method, request.routeOptions.url)
    if (access === 'public') return
    if (access === 'admin') {
      // Without a configured key the admin group does not exist.
      if (!adminDigest) throw new NotFoundError(`Route ${request.method} ${request.url.split('?')[0]} not found`)
      const given = request.headers['x-admin-key']
      if (typeof given !== 'string' || !timingSafeEqual(sha256(given), adminDigest)) {
        throw new UnauthenticatedError('Missing or invalid admin key')
      }
      return
    }
    if (access === 'client') {
      request.vcApi = await options.vcApiTokens.verify(bearerToken(request))
      return
    }
    request.auth = await options.tokens.verify(bearerToken(request))
    checkDidBinding(request, request.auth.did)
  })
}

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization
  if (!header) throw new UnauthenticatedError('Missing Authorization header')
  const match = /^Bearer\s+(\S+)$/i.exec(header)
  if (!match) throw new UnauthenticatedError('Authorization header must be "Bearer <token>"')
  return match[1]!
}

function checkDidBinding(request: FastifyRequest, tokenDid: string): void {
  const params = request.params as Record<string, string | undefined> | undefined
  if (params?.did !== undefined && normalizeDid(params.did) !== tokenDid) {
    throw new ForbiddenError('The DID in the path is not the authenticated DID')
  }
  const headerDid = request.headers['x-user-did']
  if (headerDid !== undefined) {
    if (typeof headerDid !== 'string' || normalizeDid(headerDid) !== tokenDid) {
      throw new ForbiddenError('X-User-DID is not the authenticated DID')
    }
  }
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest()

export default fp(authPlugin, { name: 'request-auth' })
