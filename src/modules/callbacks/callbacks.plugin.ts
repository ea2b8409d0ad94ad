import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { HttpPost } from '../../adapters/http-out/guarded-post.js'
import type { ModuleContext } from '../shared/module-context.js'
import { createCallbackOutbox, type CallbackOutbox } from './callback-outbox.js'
import { callbackRoutes } from './callbacks.routes.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Signed webhooks through the durable outbox: `enqueue(trx, event)` in a transaction, `nudge()` after it. */
    callbacks: CallbackOutbox
  }
}

export interface CallbacksPluginOptions extends ModuleContext {
  /** Sender of callbacks; default the guarded POST (CALLBACK_ALLOW_PRIVATE, OUTBOUND_TIMEOUT_MS). */
  post?: HttpPost
}

/**
 * Registers GET /api/callbacks/jwks, decorates the app with `callbacks` (the outbox), starts the
 * dispatcher when the app is ready and stops it on close. Not encapsulated, so the decoration
 * is visible to the code that registered it. Fastify runs onClose hooks in reverse order of
 * registration: register this before the hook that closes the database, so sends in flight can
 * still record their outcome.
 */
async function callbacks(app: FastifyInstance, { db, clock, config, post }: CallbacksPluginOptions): Promise<void> {
  const outbox = createCallbackOutbox({
    db,
    keys: app.keys,
    clock,
    allowPrivate: config.callbackAllowPrivate,
    timeoutMs: config.outboundTimeoutMs,
    pollMs: config.callbackPollMs,
    maxAttempts: config.callbackMaxAttempts,
    leaseMs: config.callbackLeaseMs,
    post,
    logger: app.log.child({ module: 'callbacks' }),
  })
  app.decorate('callbacks', outbox)
  await app.register(callbackRoutes, { prefix: '/api/callbacks', outbox })
  app.addHook('onReady', async () => outbox.start())
  app.addHook('onClose', async () => outbox.stop())
}

export const callbacksPlugin = fp(callbacks, { name: 'callbacks', fastify: '5.x', dependencies: ['keys'] })
