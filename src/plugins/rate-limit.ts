import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { RateLimitedError } from '../errors.js'
import type { RateLimiter } from '../modules/rate-limit/rate-limiter.js'

/**
 * Named per-client-IP budgets: 'auth' (RATE_LIMIT_AUTH_PER_MINUTE) on the sign-in routes,
 * 'resolve' (RATE_LIMIT_RESOLVE_PER_MINUTE) on DID resolution, whose did:web misses cost an
 * outgoing fetch.
 */
export type RateLimitBucket = 'auth' | 'resolve'

declare module 'fastify' {
  interface FastifyContextConfig {
    rateLimit?: RateLimitBucket
  }
}

const MESSAGES: Record<RateLimitBucket, string> = {
  auth: 'Too many authentication requests: slow down',
  resolve: 'Too many DID resolutions: slow down',
}

async function rateLimitPlugin(
  app: FastifyInstance,
  options: { limiters: Record<RateLimitBucket, RateLimiter> },
): Promise<void> {
  const limiters = Object.values(options.limiters)
  app.addHook('onReady', async () => limiters.forEach((l) => l.start()))
  app.addHook('onClose', async () => {
    await Promise.all(limiters.map((l) => l.stop()))
  })
  app.addHook('onRequest', async (request, reply) => {
    const bucket = request.routeOptions.config?.rateLimit
    if (bucket === undefined) return
    const decision = await options.limiters[bucket].hit(`${bucket}:${request.ip}`)
    reply.header('x-ratelimit-limit', decision.limit)
    reply.header('x-ratelimit-remaining', decision.remaining)
    if (!decision.allowed) {
      const retryAfter = Math.max(1, Math.ceil((decision.resetAt.getTime() - Date.now()) / 1000))
      throw new RateLimitedError(MESSAGES[bucket], { details: { retry_after_seconds: retryAfter } })
    }
  })
}

export default fp(rateLimitPlugin, { name: 'rate-limit' })
