import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MicroBatcher } from '../../src/shared/micro-batcher.js'

describe('MicroBatcher', () => {
  it('groups submissions made while a batch is written, answering each caller its own result', async () => {
    const batches: number[][] = []
    const batcher = new MicroBatcher<number, number>(async (items) => {
      batches.push(items)
      await new Promise((resolve) => setTimeout(resolve, 20))
      return items.map((n) => n * 10)
    })
    const first = batcher.submit(1)
    await new Promise((resolve) => setImmediate(resolve))
    const rest = [2, 3, 4].map((n) => batcher.submit(n))
    assert.deepEqual(await Promise.all([first, ...rest]), [10, 20, 30, 40])
    assert.deepEqual(batches, [[1], [2, 3, 4]])
  })

  it('caps the batch size', async () => {
    const sizes: number[] = []
    const batcher = new MicroBatcher<number, number>(async (items) => {
      sizes.push(items.length)
      return items
    }, 3)
    await Promise.all(Array.from({ length: 7 }, (_, i) => batcher.submit(i)))
    assert.deepEqual(sizes, [3, 3, 1])
  })

  it('rejects every caller of a failed batch and keeps working afterwards', async () => {
    let fail = true
    const batcher = new MicroBatcher<number, number>(async (items) => {
      if (fail) throw new Error('write failed')
      return items
    })
    const results = await Promise.allSettled([batcher.submit(1), batcher.submit(2)])
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    )
    fail = false
    assert.equal(await batcher.submit(3), 3)
  })
})
