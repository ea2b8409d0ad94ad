import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { runtimeProblem } from '../../src/runtime-version.js'

describe('runtime version', () => {
  it('accepts Node 24.7 and later, and refuses older runtimes with the way out', () => {
    for (const ok of ['24.7.0', '24.21.0', '26.0.0']) assert.equal(runtimeProblem(ok), undefined, ok)
    for (const old of ['20.20.2', '22.19.0', '24.6.1'])
      assert.match(runtimeProblem(old) ?? '', /24\.7 or later is required .*npm start/, old)
  })

  it('is the runtime the tests run on (npm ci installed Node 24)', () => {
    assert.equal(runtimeProblem(), undefined, process.version)
  })
})
