/** An exponential back-off: the first delay, doubled after each failure, up to a cap. */
export interface Backoff {
  baseMs: number
  maxMs: number
}

/**
 * Delay before the try after `failures` failed ones: base · 2^(failures−1), capped, with "equal
 * jitter" (uniformly between half and all of it, as in the AWS Architecture Blog's "Exponential
 * Backoff and Jitter"), so the retries of many senders after one outage do not arrive together.
 */
export function backoffDelayMs(failures: number, backoff: Backoff, random: () => number = Math.random): number {
  const exponential = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, failures - 1))
  return Math.round(exponential / 2 + (random() * exponential) / 2)
}
