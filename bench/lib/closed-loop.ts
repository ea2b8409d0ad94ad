import { percentile } from './stats.js'

/** One phase of a closed-loop load: completed operations per second, latencies, errors by kind. */
export interface PhaseResult {
  perSecond: number
  p50Ms: number
  p99Ms: number
  errors: number
  errorKinds: Record<string, number>
}

/**
 * `connections` loops, one request in flight each, until the deadline; only operations completed
 * inside the window count. `op` answers undefined when the operation succeeded, else its error kind.
 */
export async function closedLoop(
  connections: number,
  seconds: number,
  op: (n: number) => Promise<string | undefined>,
): Promise<PhaseResult> {
  const deadline = performance.now() + seconds * 1000
  const latencies: number[] = []
  const errorKinds: Record<string, number> = {}
  let next = 0
  const loop = async () => {
    while (performance.now() < deadline) {
      const n = next++
      const began = performance.now()
      const error = await op(n).catch((e: NodeJS.ErrnoException) => `network ${e.code ?? e.message}`)
      if (error !== undefined) {
        errorKinds[error] = (errorKinds[error] ?? 0) + 1
        continue
      }
      const ended = performance.now()
      if (ended <= deadline) latencies.push(ended - began)
    }
  }
  await Promise.all(Array.from({ length: connections }, loop))
  const sorted = Float64Array.from(latencies).sort()
  return {
    perSecond: latencies.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors: Object.values(errorKinds).reduce((a, b) => a + b, 0),
    errorKinds,
  }
}
