import type { Database } from '../../db/database.js'
import * as repo from './rate-limit.repository.js'

/**
 * Fixed-window rate limiting whose counts live in the database, so every instance behind a
 * load balancer shares them (DESIGN.md principle 6). Hits are counted locally and added to the
 * shared counters in one batched upsert every `flushMs`; a decision uses the last shared total
 * plus this instance's unflushed hits. With N instances a client can overshoot the limit by at
 * most what the other N-1 instances admit in one flush interval; with one instance it is exact.
 * The per-request cost is a map lookup instead of a database round trip.
 */
export interface RateLimitDecision {
  allowed: boolean
  limit: number
  remaining: number
  resetAt: Date
}

const WINDOW_MS = 60_000

interface BucketState {
  shared: number
  pending: number
}

export class RateLimiter {
  private windowStart = 0
  private buckets = new Map<string, BucketState>()
  private flushing: Promise<void> | undefined
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly db: Database,
    private readonly limitPerMinute: number,
    private readonly now: () => number = Date.now,
    private readonly flushMs = 250,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush().catch(() => undefined), this.flushMs)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    await this.flush().catch(() => undefined)
  }

  hit(bucket: string): RateLimitDecision {
    this.rollWindow()
    let state = this.buckets.get(bucket)
    if (!state) {
      state = { shared: 0, pending: 0 }
      this.buckets.set(bucket, state)
    }
    const used = state.shared + state.pending
    const resetAt = new Date(this.windowStart + WINDOW_MS)
    if (used >= this.limitPerMinute) return { allowed: false, limit: this.limitPerMinute, remaining: 0, resetAt }
    state.pending += 1
    return { allowed: true, limit: this.limitPerMinute, remaining: this.limitPerMinute - used - 1, resetAt }
  }

  /** Pushes unflushed hits to the shared counters and pulls back the totals. */
  flush(): Promise<void> {
    this.flushing ??= this.doFlush().finally(() => (this.flushing = undefined))
    return this.flushing
  }

  private async doFlush(): Promise<void> {
    const windowStart = this.windowStart
    const batch = [...this.buckets].filter(([, s]) => s.pending > 0).map(([bucket, s]) => ({ bucket, hits: s.pending }))
    if (batch.length === 0) return
    for (const [, s] of this.buckets) s.pending = 0
    try {
      const totals = await repo.addHits(this.db, new Date(windowStart), batch)
      if (windowStart !== this.windowStart) return
      for (const [bucket, total] of totals) {
        const state = this.buckets.get(bucket)
        if (state) state.shared = Math.max(state.shared, total)
      }
    } catch (error) {
      // Keep the hits for the next attempt rather than forgetting them.
      if (windowStart === this.windowStart) {
        for (const h of batch) {
          const state = this.buckets.get(h.bucket)
          if (state) state.pending += h.hits
        }
      }
      throw error
    }
  }

  private rollWindow(): void {
    const current = Math.floor(this.now() / WINDOW_MS) * WINDOW_MS
    if (current === this.windowStart) return
    const previous = this.windowStart
    this.windowStart = current
    this.buckets = new Map()
    if (previous !== 0) void repo.deleteWindowsBefore(this.db, new Date(current - WINDOW_MS)).catch(() => undefined)
  }
}
