import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { RateLimitedError } from '../errors.js'
import type { RateLimiter } from '../modules/rate-limit/rate-limiter.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Routes marked 'auth' share the per-client-IP budget RATE_LIMIT_AUTH_PER_MINUTE. */
    rateLimit?: 'auth'
  }
}

async function rateLimitPlugin(app: FastifyInstance, options: { limiter: RateLimiter }): Promise<void> {
  const { limiter } = options
  app.addHook('onReady', async () => limiter.start())
  app.addHook('onClose', async () => limiter.stop())
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.rateLimit !== 'auth') return
    const decision = limiter.hit(`auth:${request.ip}`)
    reply.header('x-ratelimit-limit', decision.limit)
    reply.header('x-ratelimit-remaining', decision.remaining)
    if (!decision.allowed) {
      const retryAfter = Math.max(1, Math.ceil((decision.resetAt.getTime() - Date.now()) / 1000))
      throw new RateLimitedError('Too many authentication requests: slow down', { details: { retry_after_seconds: retryAfter } })
    }
  })
}

export default fp(rateLimitPlugin, { name: 'rate-limit' })
