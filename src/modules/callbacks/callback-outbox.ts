import { randomUUID } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import { createGuardedPost, type HttpPost } from '../../adapters/http-out/guarded-post.js'
import type { Database, Executor } from '../../db/database.js'
import type { KeyStore } from '../keys/key-store.js'
import { CallbackDispatcher, type CallbackDispatcherOptions, type DispatcherLogger } from './callback-dispatcher.js'
import { checkEvent, type CallbackEventInput } from './callback-event.js'
import * as repo from './callback-outbox.repository.js'
import { CallbackSigner, type Jwk } from './callback-signer.js'

export type { CallbackEventInput } from './callback-event.js'
export type { CallbackDelivery } from './callback-outbox.repository.js'

/**
 * Signed webhooks through a durable outbox (DESIGN.md principle 5 and "Callbacks"). A service
 * enqueues an event inside the transaction of the state change it reports, so the event exists
 * if and only if that change committed; the dispatcher delivers it afterwards.
 */
export interface CallbackOutbox {
  /**
   * Writes the event inside `trx` and returns its id (what receivers deduplicate on). Throws a
   * ValidationError for a malformed type or data (a bug of the caller), which rolls the
   * caller's transaction back; the URL is only checked when sending (an unusable one makes the
   * event dead with a readable last_error). Never touches the database outside `trx`.
   */
  enqueue(trx: Executor, event: CallbackEventInput): Promise<string>
  /** Call after the enqueuing transaction committed: delivers soon rather than at the next poll. */
  nudge(): void
  /** Delivery state of one event (pending, delivered or dead, attempts, last error). */
  status(eventId: string): Promise<repo.CallbackDelivery | undefined>
  /** The public keys receivers verify signatures with (GET /api/callbacks/jwks). */
  jwks(): Promise<{ keys: Jwk[] }>
  /** Starts the dispatcher (the plugin does this when the app is ready). */
  start(): void
  /** Stops it cleanly: no timer left, sends in flight awaited (the plugin does this on close). */
  stop(): Promise<void>
  readonly dispatcher: CallbackDispatcher
}

export interface CallbackOutboxOptions
  extends Pick<
    CallbackDispatcherOptions,
    'pollMs' | 'maxInFlight' | 'leaseMs' | 'retentionMs' | 'maxAttempts' | 'backoffBaseMs' | 'backoffMaxMs' | 'random'
  > {
  db: Database
  keys: KeyStore
  clock: Clock
  /** CALLBACK_ALLOW_PRIVATE: allow receivers on private, loopback, link-local… addresses. */
  allowPrivate: boolean
  /** Per POST (config.outboundTimeoutMs). */
  timeoutMs: number
  /** The sender; default the guarded POST built from allowPrivate and timeoutMs. */
  post?: HttpPost
  logger?: DispatcherLogger
}

export function createCallbackOutbox(options: CallbackOutboxOptions): CallbackOutbox {
  const signer = new CallbackSigner(options.keys, options.clock)
  const post = options.post ?? createGuardedPost({ allowPrivate: options.allowPrivate, timeoutMs: options.timeoutMs })
  const dispatcher = new CallbackDispatcher({ ...options, signer, post })
  return {
    dispatcher,
    async enqueue(trx, event) {
      const payload = checkEvent(event)
      const eventId = randomUUID()
      await repo.insertEvent(trx, {
        event_id: eventId,
        event_type: event.type,
        url: event.url,
        payload,
        created_at: options.clock.now(),
      })
      return eventId
    },
    nudge: () => dispatcher.nudge(),
    status: (eventId) => repo.findByEventId(options.db, eventId),
    jwks: () => signer.jwks(),
    start: () => dispatcher.start(),
    stop: () => dispatcher.stop(),
  }
}
