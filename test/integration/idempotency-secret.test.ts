import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { SecretBox } from '../../src/crypto/secret-box.js'
import { UnprocessableError } from '../../src/errors.js'
import type { DatabaseHandle } from '../../src/db/connect.js'
import { IdempotencyService, withClaim, type KeyedRequest } from '../../src/modules/idempotency/idempotency.service.js'
import { createTestDatabase } from '../helpers/test-database.js'

/** The core of Idempotency-Key (docs/idempotency.md) on a real database: claims, sealed secrets, refusals. */
describe('IdempotencyService: a secret shown once is sealed with its key and answered again', () => {
  let handle: DatabaseHandle
  let service: IdempotencyService
  const clock = { now: () => new Date() }

  before(async () => {
    handle = await createTestDatabase()
    service = new IdempotencyService({
      db: handle.db,
      clock,
      ttlSeconds: 3600,
      box: new SecretBox(randomBytes(32), 'idempotency'),
    })
  })
  after(() => handle.close())

  const request = (key: string, body: unknown = { n: 1 }): KeyedRequest => ({
    callerDid: 'did:example:caller',
    method: 'POST',
    path: '/api/things',
    header: `"${key}"`,
    body,
  })
  /** A create that makes a resource id and a secret, counting its runs. */
  const creator = () => {
    let runs = 0
    const create = (claim: Parameters<Parameters<IdempotencyService['run']>[1]>[0]) => {
      runs++
      const id = `thing-${randomUUID()}`
      const secret = { tx_code: String(100000 + runs * 7919) }
      return withClaim(handle.db, claim, id, async () => ({ id, ...secret }), secret)
    }
    return { create, runs: () => runs }
  }

  it('a replay answers the sealed secret; the stored bytes do not hold it in the clear', async () => {
    const key = randomUUID()
    const { create, runs } = creator()
    const replay = async (id: string, secret: unknown) => ({ id, ...(secret as { tx_code: string }) })
    const first = await service.run(request(key), create, replay)
    const again = await service.run(request(key), create, replay)
    assert.equal(runs(), 1)
    assert.equal(first.replayed, false)
    assert.equal(again.replayed, true)
    assert.deepEqual(again.body, first.body)

    const row = await handle.db
      .selectFrom('idempotency_keys')
      .select(['sealed_secret', 'resource_id'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow()
    assert.equal(row.resource_id, first.body.id)
    assert.ok(row.sealed_secret && row.sealed_secret.length > 16)
    assert.equal(Buffer.from(row.sealed_secret).includes(Buffer.from(first.body.tx_code)), false)
  })

  it("a sealed secret moved to another key's record does not open", async () => {
    const [a, b] = [randomUUID(), randomUUID()]
    const replay = async (id: string, secret: unknown) => ({ id, ...(secret as { tx_code: string }) })
    await service.run(request(a), creator().create, replay)
    await service.run(request(b), creator().create, replay)
    const sealedA = await handle.db
      .selectFrom('idempotency_keys')
      .select('sealed_secret')
      .where('key', '=', a)
      .executeTakeFirstOrThrow()
    await handle.db
      .updateTable('idempotency_keys')
      .set({ sealed_secret: sealedA.sealed_secret })
      .where('key', '=', b)
      .execute()
    await assert.rejects(service.run(request(b), creator().create, replay), /unable to authenticate/)
  })

  it('without a secret nothing is sealed and the replay gets undefined', async () => {
    const key = randomUUID()
    const create = (claim: Parameters<Parameters<IdempotencyService['run']>[1]>[0]) =>
      withClaim(handle.db, claim, 'plain-1', async () => 'created')
    let seen: unknown = 'not called'
    await service.run(request(key), create, async () => 'replayed')
    const again = await service.run(request(key), create, async (_id, secret) => {
      seen = secret
      return 'replayed'
    })
    assert.equal(again.body, 'replayed')
    assert.equal(seen, undefined)
  })

  it('a create that fails after its claim records nothing: the key is free for the retry', async () => {
    const key = randomUUID()
    const failing = (claim: Parameters<Parameters<IdempotencyService['run']>[1]>[0]) =>
      withClaim(handle.db, claim, 'never', async () => {
        throw new Error('refused after the claim')
      })
    await assert.rejects(
      service.run(request(key), failing, async () => 'replayed'),
      /refused after the claim/,
    )
    const rows = await handle.db.selectFrom('idempotency_keys').select('key').where('key', '=', key).execute()
    assert.equal(rows.length, 0)
    const { create, runs } = creator()
    const retried = await service.run(request(key), create, async () => {
      throw new Error('not a replay')
    })
    assert.equal(retried.replayed, false)
    assert.equal(runs(), 1)
  })

  it('the same key with another body is refused with 422 and creates nothing', async () => {
    const key = randomUUID()
    const { create, runs } = creator()
    await service.run(request(key, { n: 1 }), create, async () => {
      throw new Error('not a replay')
    })
    await assert.rejects(
      service.run(request(key, { n: 2 }), create, async () => {
        throw new Error('not a replay')
      }),
      (e: Error) => e instanceof UnprocessableError && /another request/.test(e.message),
    )
    assert.equal(runs(), 1)
  })
})
