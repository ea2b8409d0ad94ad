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
  /** Total of all instances as last read back. */
  shared: number
  /** Admitted here, not yet sent. */
  pending: number
  /** Sent in the flush under way, not yet in `shared`. */
  inflight: number
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
      state = { shared: 0, pending: 0, inflight: 0 }
      this.buckets.set(bucket, state)
    }
    const used = state.shared + state.pending + state.inflight
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
    const buckets = this.buckets
    const batch = [...buckets].filter(([, s]) => s.pending > 0).map(([bucket, s]) => ({ bucket, hits: s.pending }))
    if (batch.length === 0) return
    for (const [, s] of buckets) {
      s.inflight += s.pending
      s.pending = 0
    }
    let totals: Map<string, number> | undefined
    try {
      totals = await repo.addHits(this.db, new Date(windowStart), batch)
    } finally {
      for (const h of batch) {
        const state = buckets.get(h.bucket)!
        state.inflight -= h.hits
        // On failure keep the hits for the next attempt rather than forgetting them.
        if (totals) state.shared = Math.max(state.shared, totals.get(h.bucket) ?? 0)
        else state.pending += h.hits
      }
    }
  }

  private rollWindow(): void {
    const current = Math.floor(this.now() / WINDOW_MS) * WINDOW_MS
    if (current === this.windowStart) return
    const previous = this.windowStart
    const unsent = [...this.buckets].filter(([, s]) => s.pending > 0).map(([bucket, s]) => ({ bucket, hits: s.pending }))
    this.windowStart = current
    this.buckets = new Map()
    if (previous === 0) return
    // The last window's unsent hits still count for other instances; old windows are dropped.
    void repo.addHits(this.db, new Date(previous), unsent).catch(() => undefined)
    void repo.deleteWindowsBefore(this.db, new Date(current - WINDOW_MS)).catch(() => undefined)
  }
}
