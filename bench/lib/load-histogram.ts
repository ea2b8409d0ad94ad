/**
 * Latencies in constant memory: logarithmic buckets 1 % wide from 10 µs to 10 min, so a
 * 30-minute soak keeps no per-request arrays and percentiles stay within 1 % of the exact value.
 */
const MIN_MS = 0.01
const GROWTH = 1.01
const LOG_GROWTH = Math.log(GROWTH)
const BUCKETS = Math.ceil(Math.log(600_000 / MIN_MS) / LOG_GROWTH) + 1

export class LatencyHistogram {
  private readonly counts = new Uint32Array(BUCKETS)
  count = 0
  sumMs = 0
  maxMs = 0

  record(ms: number): void {
    const index = ms <= MIN_MS ? 0 : Math.min(BUCKETS - 1, Math.floor(Math.log(ms / MIN_MS) / LOG_GROWTH) + 1)
    this.counts[index]!++
    this.count++
    this.sumMs += ms
    if (ms > this.maxMs) this.maxMs = ms
  }

  /** Nearest rank, reported as the bucket's upper bound (never below the true value, at most 1 % above). */
  percentile(p: number): number {
    if (this.count === 0) return Number.NaN
    const rank = Math.max(1, Math.ceil((p / 100) * this.count))
    let seen = 0
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!
      if (seen >= rank) return Math.min(this.maxMs, MIN_MS * GROWTH ** i)
    }
    return this.maxMs
  }

  mean(): number {
    return this.count === 0 ? Number.NaN : this.sumMs / this.count
  }
}
