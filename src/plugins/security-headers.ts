import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { accessOf, CONSOLE_PREFIX, DOCS_PREFIX } from './route-access.js'

export interface SecurityHeadersOptions {
  corsOrigins: readonly string[]
  /** PUBLIC_BASE_URL is https: browsers are told to stay on https (HSTS). */
  hsts: boolean
}

/** JSON, images and CAR files need no script, style or framing; only the docs UI does. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'"
/**
 * The web console (CSP Level 3): its own scripts and styles only, no inline code, API calls to
 * this origin only; images may be data: URLs (the QR images the API returns) or blob: URLs
 * (a QR image file the holder chose).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

function cspFor(url: string | undefined): string | undefined {
  if (url === undefined) return API_CSP
  if (url === DOCS_PREFIX || url.startsWith(`${DOCS_PREFIX}/`)) return undefined // swagger-ui's page needs its inline script
  if (url === CONSOLE_PREFIX || url.startsWith(`${CONSOLE_PREFIX}/`)) return CONSOLE_CSP
  return API_CSP
}

/**
 * Baseline security headers on every response, and CORS for the origins listed in
 * CORS_ORIGINS (none by default: browsers get no cross-origin access unless configured).
 * Responses to authenticated routes carry tokens, credentials and personal data: no-store,
 * so no shared or browser cache keeps them (a route may still set its own cache-control).
 */
async function securityHeadersPlugin(app: FastifyInstance, options: SecurityHeadersOptions): Promise<void> {
  const allowed = new Set(options.corsOrigins)
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-content-type-options', 'nosniff')
    reply.header('x-frame-options', 'DENY')
    reply.header('referrer-policy', 'no-referrer')
    reply.header('x-request-id', String(request.id))
    if (options.hsts) reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains')
    const url = request.routeOptions.url
    const csp = cspFor(url)
    if (csp !== undefined) reply.header('content-security-policy', csp)
    if (accessOf(request.method, url) !== 'public') reply.header('cache-control', 'no-store')
    const origin = request.headers.origin
    if (origin && (allowed.has(origin) || allowed.has('*'))) {
      reply.header('access-control-allow-origin', allowed.has('*') ? '*' : origin)
      reply.header('vary', 'Origin')
      // idempotency-key: browsers (the SDK, the console) send it on every creating POST (docs/idempotency.md);
      // dpop, dpop-nonce and www-authenticate: a browser wallet's DPoP proofs and server nonces (RFC 9449 §8, §9).
      reply.header(
        'access-control-allow-headers',
        'authorization, content-type, x-user-did, x-request-id, idempotency-key, dpop',
      )
      reply.header('access-control-allow-methods', 'GET, POST, PUT, DELETE, OPTIONS')
      const exposed =
        'x-request-id, retry-after, x-ratelimit-limit, x-ratelimit-remaining, dpop-nonce, www-authenticate'
      reply.header('access-control-expose-headers', exposed)
      reply.header('access-control-max-age', '600')
      if (request.method === 'OPTIONS') return reply.status(204).send()
    }
  })
}

export default fp(securityHeadersPlugin, { name: 'security-headers' })
