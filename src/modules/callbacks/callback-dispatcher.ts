import type { Clock } from '../../adapters/clock.js'
import type { HttpPost } from '../../adapters/http-out/guarded-post.js'
import type { Database } from '../../db/database.js'
import { backoffDelayMs } from '../../shared/backoff.js'
import { PollLoop } from '../../shared/poll-loop.js'
import { AppError } from '../../errors.js'
import { eventBodyBytes } from './callback-event.js'
import * as repo from './callback-outbox.repository.js'
import type { CallbackSigner } from './callback-signer.js'

/**
 * Delivers the callback outbox: claims due rows (FOR UPDATE SKIP LOCKED with a lease, so
 * several instances share the work and a crashed instance's claims come back), POSTs each
 * signed body outside any transaction, and records the outcome. At-least-once: a row is only
 * finished by a 2xx answer (delivered) or by giving up (dead); receivers deduplicate on the
 * event id.
 *
 * Times stored and compared are the injected clock's, never the database's, so tests move a
 * ManualClock instead of sleeping. Across instances this assumes clocks within a few seconds of
 * each other (NTP): a lease is much longer than a send may take, so skew only shifts when an
 * abandoned claim is picked up again.
 */
export interface DispatcherLogger {
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export interface RetryPolicy {
  /** Attempts before an event is dead (the first included). */
  maxAttempts: number
  /** Delay after the first failure; doubles per attempt. */
  backoffBaseMs: number
  backoffMaxMs: number
}

export interface CallbackDispatcherOptions extends Partial<RetryPolicy> {
  db: Database
  signer: CallbackSigner
  post: HttpPost
  clock: Clock
  /** How long one POST may take; the lease is derived from it. */
  timeoutMs: number
  /** Poll interval when idle (default 1000 ms); nudge() delivers sooner. */
  pollMs?: number
  /** Sends in flight at once per instance (default 16). */
  maxInFlight?: number
  /** How long a claim is ours (default max(60 s, 4 × timeoutMs)). */
  leaseMs?: number
  /** Delivered and dead rows are deleted this long after creation (default 30 days; 0 keeps them). */
  retentionMs?: number
  /** Jitter source in [0, 1) (tests pin it). */
  random?: () => number
  logger?: DispatcherLogger
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 12, backoffBaseMs: 2_000, backoffMaxMs: 10 * 60_000 }
const PURGE_EVERY_MS = 3600_000
const MAX_ERROR_LENGTH = 300

/** A ValidationError from the sender means retrying cannot help (refused address, unusable URL). */
export function isPermanentFailure(error: unknown): boolean {
  return error instanceof AppError && error.code === 'VALIDATION_FAILED'
}

export class CallbackDispatcher {
  private readonly policy: RetryPolicy
  private readonly maxInFlight: number
  private readonly leaseMs: number
  private readonly retentionMs: number
  private readonly random: () => number
  private readonly loop: PollLoop
  /** The last claim filled every free slot: more may be due as soon as a send finishes. */
  private saturated = false
  private lastPurge = 0
  private readonly inFlight = new Set<Promise<void>>()

  constructor(private readonly options: CallbackDispatcherOptions) {
    this.policy = {
      maxAttempts: options.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts,
      backoffBaseMs: options.backoffBaseMs ?? DEFAULT_RETRY_POLICY.backoffBaseMs,
      backoffMaxMs: options.backoffMaxMs ?? DEFAULT_RETRY_POLICY.backoffMaxMs,
    }
    this.maxInFlight = options.maxInFlight ?? 16
    this.leaseMs = options.leaseMs ?? Math.max(60_000, 4 * options.timeoutMs)
    this.retentionMs = options.retentionMs ?? 30 * 24 * 3600_000
    this.random = options.random ?? Math.random
    if (this.leaseMs <= options.timeoutMs) throw new Error('the callback lease must be longer than the send timeout')
    this.loop = new PollLoop(
      () => this.tick(),
      options.pollMs ?? 1000,
      (err) => this.options.logger?.warn({ err }, 'claiming callbacks failed; retrying at the next poll'),
    )
  }

  /** What is running now (for health checks and tests). */
  get state(): { running: boolean; polling: boolean; inFlight: number } {
    return { running: this.loop.running, polling: this.loop.polling, inFlight: this.inFlight.size }
  }

  start(): void {
    this.loop.start()
  }

  /**
   * Stops polling and claiming, then waits for the sends in flight (each bounded by the send
   * timeout) and their bookkeeping. Nothing is lost either way: a claim whose outcome could not
   * be recorded is claimed again once its lease expires.
   */
  async stop(): Promise<void> {
    await this.loop.stop()
    await Promise.allSettled([...this.inFlight])
  }

  /** Look for due events now (after a commit that enqueued one) instead of at the next poll. */
  nudge(): void {
    this.loop.kick()
  }

  private async tick(): Promise<void> {
    const free = this.maxInFlight - this.inFlight.size
    if (free > 0) {
      const now = this.options.clock.now()
      const claimed = await repo.claimDue(this.options.db, {
        now,
        leaseUntil: new Date(now.getTime() + this.leaseMs),
        limit: free,
      })
      this.saturated = claimed.length === free
      for (const row of claimed) this.track(this.deliver(row))
    }
    await this.purgeIfDue()
  }

  private track(delivery: Promise<void>): void {
    // deliver() records every outcome itself; this only guards against a bug escaping it.
    const settled = delivery.catch((err: unknown) =>
      this.options.logger?.error({ err }, 'callback delivery failed unexpectedly'),
    )
    this.inFlight.add(settled)
    void settled.finally(() => {
      this.inFlight.delete(settled)
      if (this.saturated) this.loop.kick()
    })
  }

  private async deliver(row: repo.ClaimedCallback): Promise<void> {
    const { db, clock, signer, post, logger } = this.options
    let failure: { error: string; httpStatus: number | null; permanent: boolean }
    try {
      const body = eventBodyBytes({
        id: row.event_id,
        type: row.event_type,
        created_at: row.created_at.toISOString(),
        data: row.payload,
      })
      const { signature } = await signer.sign(body)
      const { status } = await post(row.url, body, {
        'content-type': 'application/json',
        'x-event-id': row.event_id,
        'x-event-type': row.event_type,
        'x-signature': signature,
        'x-delivery-attempt': String(row.attempts),
      })
      if (status >= 200 && status < 300) {
        await this.record(row, () => repo.markDelivered(db, row.id, clock.now(), status))
        return
      }
      failure = {
        error: `HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`,
        httpStatus: status,
        permanent: false,
      }
    } catch (err) {
      const permanent = isPermanentFailure(err)
      failure = {
        error: `${permanent ? 'permanent failure, not retried: ' : ''}${err instanceof AppError ? err.message : 'internal error while sending'}`,
        httpStatus: null,
        permanent,
      }
      if (!(err instanceof AppError))
        logger?.error({ err, event_id: row.event_id }, 'callback send failed unexpectedly')
    }
    const dead = failure.permanent || row.attempts >= this.policy.maxAttempts
    const retryAt = dead
      ? undefined
      : new Date(
          clock.now().getTime() +
            backoffDelayMs(
              row.attempts,
              { baseMs: this.policy.backoffBaseMs, maxMs: this.policy.backoffMaxMs },
              this.random,
            ),
        )
    if (dead)
      logger?.warn(
        { event_id: row.event_id, event_type: row.event_type, attempts: row.attempts, last_error: failure.error },
        'callback is dead',
      )
    await this.record(row, () =>
      repo.markFailed(db, row, {
        error: failure.error.slice(0, MAX_ERROR_LENGTH),
        httpStatus: failure.httpStatus,
        retryAt,
      }),
    )
  }

  private async record(row: repo.ClaimedCallback, write: () => Promise<void>): Promise<void> {
    try {
      await write()
    } catch (err) {
      // The lease runs out and the event is sent again: at-least-once, never lost.
      this.options.logger?.warn(
        { err, event_id: row.event_id },
        'recording a callback outcome failed; it will be retried after its lease',
      )
    }
  }

  private async purgeIfDue(): Promise<void> {
    if (this.retentionMs <= 0) return
    const now = this.options.clock.now().getTime()
    if (now - this.lastPurge < PURGE_EVERY_MS) return
    this.lastPurge = now
    try {
      await repo.purgeFinishedBefore(this.options.db, new Date(now - this.retentionMs))
    } catch (err) {
      this.options.logger?.warn({ err }, 'purging finished callbacks failed')
    }
  }
}
