/** metric → key → value; keys whose sum is 0 are left out, as a GROUP BY over the rows would. */
export type Counters = Map<string, Record<string, number>>

/** The sum of one metric's keys (a total over statuses, types…). */
export function total(counters: Counters, metric: string): number {
  return Object.values(counters.get(metric) ?? {}).reduce((a, b) => a + b, 0)
}

/** One key of one metric, 0 when absent. */
export function count(counters: Counters, metric: string, key = ''): number {
  return counters.get(metric)?.[key] ?? 0
}
