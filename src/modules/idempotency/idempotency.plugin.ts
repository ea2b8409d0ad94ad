import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { SecretBox } from '../../crypto/secret-box.js'
import type { ModuleContext } from '../shared/module-context.js'
import { IdempotencyService } from './idempotency.service.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Idempotency-Key on every creating POST (docs/idempotency.md); records shared by all instances. */
    idempotency: IdempotencyService
  }
}

// Expired idempotency keys removed per minute: more than one instance issues in a minute, so none pile up.
const IDEMPOTENCY_SWEEP_PER_MINUTE = 50_000

async function idempotency(app: FastifyInstance, { db, clock, config, masterKey }: ModuleContext): Promise<void> {
  const service = new IdempotencyService({
    db,
    clock,
    ttlSeconds: config.idempotencyKeyTtlSeconds,
    box: new SecretBox(masterKey, 'idempotency'),
  })
  app.decorate('idempotency', service)
  const sweep = setInterval(() => {
    void service
      .sweep(IDEMPOTENCY_SWEEP_PER_MINUTE)
      .catch((err) => app.log.warn({ err }, 'sweeping expired idempotency keys failed'))
  }, 60_000)
  sweep.unref()
  app.addHook('onClose', async () => clearInterval(sweep))
}

export const idempotencyPlugin = fp(idempotency, { name: 'idempotency', fastify: '5.x' })
