import type { FastifyInstance, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { accessOf } from './route-access.js'

/**
 * Per-route body limits. Routes that carry credentials, schemas, attribute maps or files get
 * BODY_LIMIT_BYTES; the rest (every public and admin route, and the small control routes:
 * profiles, revoke/reject, consents, domains) get SMALL_BODY_LIMIT_BYTES, so an
 * unauthenticated caller can never make the server buffer and parse a megabyte of JSON.
 * Decided here, in one table, rather than in each route file.
 */
const SMALL_CONTROL_ROUTES: readonly RegExp[] = [
  /\/(revoke|reject|set-auth|authenticate|update)$/,
  /^\/api\/wallet\/:did\/consents$/,
  /^\/api\/wallet\/:did\/encryption-key$/,
  /^\/api\/wallet\/presentation-requests$/,
  /^\/api\/domain\//,
  /^\/api\/(issuer|verifier)$/,
  /^\/api\/auth\/(profile|wallet\/encrypted-seed)$/,
]

/** Multipart routes stream their parts under @fastify/multipart's own per-file limits. */
const MULTIPART_ROUTES: ReadonlySet<string> = new Set(['/api/auth/avatar', '/api/wallet/:did/evidence/upload'])

export function bodyLimitFor(method: string, url: string, limits: { large: number; small: number }): number {
  if (MULTIPART_ROUTES.has(url)) return limits.large
  const access = accessOf(method, url)
  // VC API routes (access 'client') carry credentials and presentations, like the spec's credential routes.
  if (access === 'public' || access === 'admin') return limits.small
  return SMALL_CONTROL_ROUTES.some((pattern) => pattern.test(url)) ? limits.small : limits.large
}

async function bodyLimitsPlugin(app: FastifyInstance, limits: { large: number; small: number }): Promise<void> {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.bodyLimit !== undefined) return
    const method = Array.isArray(route.method) ? route.method[0]! : route.method
    route.bodyLimit = bodyLimitFor(method, route.url, limits)
  })
}

export default fp(bodyLimitsPlugin, { name: 'body-limits' })
