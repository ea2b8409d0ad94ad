import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { CarReader } from '@ipld/car'
import { CID } from 'multiformats/cid'
import pg from 'pg'
import {
  DbBlockRepository,
  EmbeddedContentStore,
  KUBO_DEFAULT_PROFILE,
  MemoryBlockRepository,
  blockKey,
  createContentStore,
} from '../../src/adapters/content-store/index.js'
import { openDatabase, type DatabaseHandle } from '../../src/db/connect.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import { NotFoundError } from '../../src/errors.js'

// The embedded store on the real `content_blocks` table: in-memory PGlite always, and
// PostgreSQL too when TEST_DATABASE_URL is set (a throwaway database cs_<random> is created
// from that URL and dropped afterwards).

const MAX = 8 * 1024 * 1024

function pseudoRandomBytes(length: number, seed: number): Uint8Array {
  const words = new Uint32Array(Math.ceil(length / 4))
  let x = seed >>> 0
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    words[i] = x
  }
  return new Uint8Array(words.buffer, 0, length)
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  for await (const part of source) parts.push(part)
  const buf = Buffer.concat(parts)
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
}

interface Engine {
  name: string
  open(): Promise<{ handle: DatabaseHandle; dispose(): Promise<void> }>
}

const engines: Engine[] = [
  {
    name: 'PGlite',
    open: async () => {
      const handle = await openDatabase({})
      return { handle, dispose: () => handle.close() }
    },
  },
]

const testDatabaseUrl = process.env.TEST_DATABASE_URL
if (testDatabaseUrl) {
  engines.push({
    name: 'PostgreSQL',
    open: async () => {
      const name = `cs_${randomBytes(6).toString('hex')}`
      const admin = new pg.Client({ connectionString: testDatabaseUrl })
      await admin.connect()
      await admin.query(`create database ${name}`)
      const url = new URL(testDatabaseUrl)
      url.pathname = `/${name}`
      const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 4 })
      return {
        handle,
        dispose: async () => {
          await handle.close()
          await admin.query(`drop database if exists ${name}`)
          await admin.end()
        },
      }
    },
  })
}

for (const engine of engines) {
  describe(`DbBlockRepository on ${engine.name}`, () => {
    let opened: Awaited<ReturnType<Engine['open']>>
    let store: EmbeddedContentStore
    let repo: DbBlockRepository

    before(async () => {
      opened = await engine.open()
      await migrateToLatest(opened.handle.db)
      repo = new DbBlockRepository(opened.handle.db)
      store = new EmbeddedContentStore(repo, { maxBytes: MAX })
    })

    after(async () => {
      await opened?.dispose()
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
        Number((await opened.handle.db.selectFrom('content_blocks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
      const before = await count()

      const started = performance.now()
      const first = await store.put(bytes, { profile: KUBO_DEFAULT_PROFILE })
      t.diagnostic(`put 1 MB on ${engine.name}: ${(performance.now() - started).toFixed(1)} ms`)
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
      assert.deepEqual(
        (await car.getRoots()).map(String),
        [stored.cid],
      )
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
}
