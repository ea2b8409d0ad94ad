import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/**
 * Baseline security headers on every response, and CORS for the origins listed in
 * CORS_ORIGINS (none by default: browsers get no cross-origin access unless configured).
 */
async function securityHeadersPlugin(app: FastifyInstance, options: { corsOrigins: readonly string[] }): Promise<void> {
  const allowed = new Set(options.corsOrigins)
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-content-type-options', 'nosniff')
    reply.header('x-frame-options', 'DENY')
    reply.header('referrer-policy', 'no-referrer')
    reply.header('x-request-id', String(request.id))
    const origin = request.headers.origin
    if (origin && (allowed.has(origin) || allowed.has('*'))) {
      reply.header('access-control-allow-origin', allowed.has('*') ? '*' : origin)
      reply.header('vary', 'Origin')
      reply.header('access-control-allow-headers', 'authorization, content-type, x-user-did, x-request-id')
      reply.header('access-control-allow-methods', 'GET, POST, PUT, DELETE, OPTIONS')
      if (request.method === 'OPTIONS') return reply.status(204).send()
    }
  })
}

export default fp(securityHeadersPlugin, { name: 'security-headers' })
