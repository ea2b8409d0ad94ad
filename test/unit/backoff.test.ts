import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { backoffDelayMs } from '../../src/shared/backoff.js'

describe('backoffDelayMs', () => {
  const backoff = { baseMs: 2000, maxMs: 600_000 }

  it('doubles from the base, with jitter between half and all of the delay, capped', () => {
    assert.equal(
      backoffDelayMs(1, backoff, () => 0),
      1000,
    )
    assert.equal(
      backoffDelayMs(1, backoff, () => 0.999999),
      2000,
    )
    assert.equal(
      backoffDelayMs(2, backoff, () => 0.999999),
      4000,
    )
    assert.equal(
      backoffDelayMs(5, backoff, () => 0),
      16_000,
    )
    assert.equal(
      backoffDelayMs(9, backoff, () => 0.999999),
      512_000,
    )
    assert.equal(
      backoffDelayMs(10, backoff, () => 0.999999),
      600_000,
    )
    assert.equal(
      backoffDelayMs(40, backoff, () => 0),
      300_000,
    )
    for (let failures = 1; failures <= 12; failures++) {
      const delay = backoffDelayMs(failures, backoff)
      const full = Math.min(600_000, 2000 * 2 ** (failures - 1))
      assert.ok(delay >= full / 2 && delay <= full, `after ${failures} failures: ${delay}`)
    }
  })

  it('waits the base before the first try, and stays at the cap however many failures', () => {
    assert.equal(
      backoffDelayMs(0, backoff, () => 0.999999),
      2000,
    )
    assert.equal(
      backoffDelayMs(10_000, backoff, () => 0.999999),
      600_000,
    )
    assert.equal(
      backoffDelayMs(10_000, { baseMs: 2000, maxMs: 5 * 60_000 }, () => 0.5),
      225_000,
    )
  })

  it('spreads the retries of one round instead of lining them up', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelayMs(6, backoff)))
    assert.ok(delays.size > 40, `${delays.size} distinct delays of 50`)
  })
})
