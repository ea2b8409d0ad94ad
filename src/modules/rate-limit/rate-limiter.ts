import type { Database } from '../../db/database.js'
import * as repo from './rate-limit.repository.js'

/**
 * Fixed-window rate limiting whose counts live in the database, so every instance behind a
 * load balancer shares them (DESIGN.md principle 6). Hits are counted locally and added to the
 * shared counters in one batched upsert every `flushMs`; a decision uses the last shared total
 * plus this instance's unsent hits. An instance admits at most its `share` of unsent hits per
 * bucket (a tenth of the limit, at least one): past that, the request waits for a flush, which
 * sends them and reads back every instance's total. So with N instances a client gets at most
 * the limit plus (N-1) x share, however fast it sends; with one instance it is exact. Most
 * requests cost a map lookup; one in `share` of a busy client's waits for one upsert.
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
  /** Unsent hits per bucket this instance may admit before it reads the shared total. */
  readonly share: number

  constructor(
    private readonly db: Database,
    private readonly limitPerMinute: number,
    private readonly now: () => number = Date.now,
    private readonly flushMs = 250,
  ) {
    this.share = Math.max(1, Math.ceil(limitPerMinute / 10))
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush().catch(() => undefined), this.flushMs)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    await this.flush().catch(() => undefined)
  }

  async hit(bucket: string): Promise<RateLimitDecision> {
    // Each flush lets `share` more through, so waiting always ends. A database that cannot be
    // reached does not hold requests: the hits stay pending for a later flush and the decision
    // rests on what this instance knows.
    for (;;) {
      const state = this.state(bucket)
      if (
        state.pending + state.inflight < this.share ||
        state.shared + state.pending + state.inflight >= this.limitPerMinute
      )
        break
      try {
        await this.flush()
      } catch {
        break
      }
    }
    return this.decide(this.state(bucket))
  }

  private state(bucket: string): BucketState {
    this.rollWindow()
    let state = this.buckets.get(bucket)
    if (!state) {
      state = { shared: 0, pending: 0, inflight: 0 }
      this.buckets.set(bucket, state)
    }
    return state
  }

  private decide(state: BucketState): RateLimitDecision {
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
    const unsent = [...this.buckets]
      .filter(([, s]) => s.pending > 0)
      .map(([bucket, s]) => ({ bucket, hits: s.pending }))
    this.windowStart = current
    this.buckets = new Map()
    if (previous === 0) return
    // The last window's unsent hits still count for other instances; old windows are dropped.
    void repo.addHits(this.db, new Date(previous), unsent).catch(() => undefined)
    void repo.deleteWindowsBefore(this.db, new Date(current - WINDOW_MS)).catch(() => undefined)
  }
}
