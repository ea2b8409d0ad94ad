import autocannon from 'autocannon'

export interface FloorResult {
  requests: number
  seconds: number
  requestsPerSecond: number
  /** Connection errors and timeouts plus non-2xx answers: the floor must have none. */
  errors: number
  p50Ms: number
  p99Ms: number
}

/** The framework floor: a trivial route through the same plugins and hooks as every other. */
export async function runFloor(baseUrl: string, connections: number, seconds: number): Promise<FloorResult> {
  const result = await autocannon({ url: `${baseUrl}/api/health/live`, connections, duration: seconds, timeout: 10 })
  return {
    requests: result.requests.total,
    seconds: result.duration,
    requestsPerSecond: result.requests.total / result.duration,
    errors: result.errors + result.non2xx,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  }
}
