import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config.js'

describe('config: CLOCK_SKEW_SECONDS', () => {
  it('defaults to 60 s and reads a whole number of seconds from 0 to 300', () => {
    assert.equal(loadConfig({}).clockSkewSeconds, 60)
    assert.equal(loadConfig({ CLOCK_SKEW_SECONDS: '0' }).clockSkewSeconds, 0)
    assert.equal(loadConfig({ CLOCK_SKEW_SECONDS: '300' }).clockSkewSeconds, 300)
  })

  it('refuses to start on anything else, naming the variable and its bounds', () => {
    for (const bad of ['-1', '301', '1.5', 'a minute', '60s']) {
      assert.throws(
        () => loadConfig({ CLOCK_SKEW_SECONDS: bad }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.includes(`CLOCK_SKEW_SECONDS must be a whole number from 0 to 300 (got "${bad}")`),
        bad,
      )
    }
  })
})
