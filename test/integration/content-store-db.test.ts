import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { CarReader } from '@ipld/car'
import { CID } from 'multiformats/cid'
import {
  DbBlockRepository,
  EmbeddedContentStore,
  KUBO_DEFAULT_PROFILE,
  MemoryBlockRepository,
  blockKey,
  createContentStore,
} from '../../src/adapters/content-store/index.js'
import type { DatabaseHandle } from '../../src/db/connect.js'
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js'
import { NotFoundError } from '../../src/errors.js'
import { collect, pseudoRandomBytes } from '../helpers/bytes.js'

// The embedded store on the real `content_blocks` table, on whichever engine the runner picked
// (this suite runs once on PGlite and once on PostgreSQL).

const MAX = 8 * 1024 * 1024

describe(`DbBlockRepository on ${TEST_ENGINE}`, () => {
  let opened: { handle: DatabaseHandle }
  let store: EmbeddedContentStore
  let repo: DbBlockRepository

  before(async () => {
    opened = { handle: await createTestDatabase() }
    repo = new DbBlockRepository(opened.handle.db)
    store = new EmbeddedContentStore(repo, { maxBytes: MAX })
  })

  after(async () => {
    await opened?.handle.close()
  })

  test('blocks come back as plain Uint8Array, absent ones as undefined', async () => {
    const bytes = new Uint8Array([1, 2, 3, 4])
    await repo.putMany([{ cid: 'test-key-1', bytes }])
    const got = await repo.get('test-key-1')
    assert.equal(Object.getPrototypeOf(got), Uint8Array.prototype)
    assert.deepEqual(got, bytes)
    assert.equal(await repo.get('test-key-absent'), undefined)
    assert.equal(await repo.has('test-key-1'), true)
    assert.equal(await repo.has('test-key-absent'), false)
  })

  test('putMany is idempotent and tolerates duplicates within one call', async () => {
    const a = { cid: 'test-key-2', bytes: new Uint8Array([9]) }
    await repo.putMany([a, a])
    await repo.putMany([a, { cid: 'test-key-3', bytes: new Uint8Array([8]) }])
    assert.deepEqual(await repo.get('test-key-2'), new Uint8Array([9]))
    assert.deepEqual(await repo.get('test-key-3'), new Uint8Array([8]))
    await repo.putMany([])
  })

  test('a failure in a later batch rolls back the earlier ones', async () => {
    // 500 rows per statement: block 501 is in the second INSERT, and it cannot be written.
    const good = Array.from({ length: 500 }, (_, i) => ({ cid: `test-batch-${i}`, bytes: new Uint8Array([i & 0xff]) }))
    const bad = { cid: 'test-batch-bad', bytes: null as unknown as Uint8Array }
    await assert.rejects(repo.putMany([...good, bad]))
    assert.equal(await repo.has('test-batch-0'), false)
  })

  test('put / get / has of a multi-block file, twice, stores each block once', async (t) => {
    const bytes = pseudoRandomBytes(1_000_000, 1)
    const count = async () =>
      Number(
        (
          await opened.handle.db
            .selectFrom('content_blocks')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await count()

    const started = performance.now()
    const first = await store.put(bytes, { profile: KUBO_DEFAULT_PROFILE })
    t.diagnostic(`put 1 MB on ${TEST_ENGINE}: ${(performance.now() - started).toFixed(1)} ms`)
    const second = await store.put(bytes, { profile: KUBO_DEFAULT_PROFILE })

    assert.equal(first.cid, second.cid)
    assert.equal((await count()) - before, 5)
    assert.equal(await store.has(first.cid), true)
    assert.deepEqual(await store.get(first.cid), bytes)
    // Stored under the v1 spelling: the column holds blockKey(), not the Qm string.
    const row = await opened.handle.db
      .selectFrom('content_blocks')
      .select('size')
      .where('cid', '=', blockKey(CID.parse(first.cid)))
      .executeTakeFirst()
    assert.ok(row && row.size > 0)
  })

  test('several batches (> 4 MiB of blocks) land in one transaction and read back', async () => {
    const bytes = pseudoRandomBytes(6 * 1024 * 1024, 2)
    const stored = await store.put(bytes)
    assert.deepEqual(await store.get(stored.cid), bytes)
  })

  test('CAR export from the database rebuilds the file elsewhere', async () => {
    const bytes = pseudoRandomBytes(700_000, 3)
    const stored = await store.put(bytes)
    const car = await CarReader.fromBytes(await collect(store.exportCar(stored.cid)))
    assert.deepEqual((await car.getRoots()).map(String), [stored.cid])
    const fresh = new MemoryBlockRepository()
    for await (const block of car.blocks()) await fresh.putMany([{ cid: blockKey(block.cid), bytes: block.bytes }])
    assert.deepEqual(await new EmbeddedContentStore(fresh, { maxBytes: MAX }).get(stored.cid), bytes)
  })

  test('unknown CID is NotFoundError; createContentStore without a URL is this store', async () => {
    const made = createContentStore({ db: opened.handle.db, maxBytes: MAX })
    assert.equal(made.kind, 'embedded')
    await made.check()
    const stored = await made.put(new TextEncoder().encode('via factory'))
    assert.equal(await store.has(stored.cid), true)
    await assert.rejects(made.get('bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'), NotFoundError)
  })
})
