/**
 * Closing the service: every module's close hook (the rate limiter's final flush of its counters,
 * the outboxes' last writes, the background refreshers) runs while the database is still open,
 * and the database handle closes last. Fastify runs close hooks in the reverse order of their
 * registration, so the database's is registered first.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { createTestApp } from '../helpers/test-app.js'

describe('closing the service', () => {
  it('closes the database after every module has written what it still had', async (test) => {
    let phase: 'open' | 'closing' | 'closed' = 'open'
    const afterClose: string[] = []
    let whileClosing = 0
    const t = await createTestApp({
      wrapDatabase: (database) => ({
        ...database,
        db: database.db.withPlugin({
          transformQuery: (args) => {
            if (phase === 'closed') afterClose.push(args.node.kind)
            if (phase === 'closing') whileClosing++
            return args.node
          },
          transformResult: async (args) => args.result,
        }),
        close: async () => {
          phase = 'closed'
          await database.close()
        },
      }),
    })
    // Sign-in challenges are rate limited: their hits wait in the limiter for its next flush.
    const challenges = Array.from({ length: 20 }, () =>
      t.app.inject({ method: 'POST', url: '/api/auth/challenge', payload: { did: new DidClient().did } }),
    )
    for (const res of await Promise.all(challenges)) assert.equal(res.statusCode, 200, res.body)
    phase = 'closing'
    await t.close()
    assert.equal(phase, 'closed', 'the database handle was closed')
    assert.deepEqual(afterClose, [], 'a module used the database after it was closed')
    test.diagnostic(`${whileClosing} statement(s) while closing, before the database closed`)
  })
})
