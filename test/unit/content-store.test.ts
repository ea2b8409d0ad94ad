import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, test } from 'node:test'
import { promisify } from 'node:util'
import { CarReader } from '@ipld/car'
import * as dagPb from '@ipld/dag-pb'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { sha256 } from 'multiformats/hashes/sha2'
import {
  DEFAULT_PROFILE,
  KUBO_DEFAULT_PROFILE,
  MemoryBlockRepository,
  blockKey,
  type Block,
  type ImportProfile,
} from '../../src/adapters/content-store/index.js'
import { EmbeddedContentStore } from '../../src/adapters/content-store/embedded-content-store.js'
import {
  DependencyUnavailableError,
  NotFoundError,
  PayloadTooLargeError,
  UnprocessableError,
  ValidationError,
} from '../../src/errors.js'
import { collect, pseudoRandomBytes } from '../helpers/bytes.js'

// Embedded store over MemoryBlockRepository; CIDs checked against multiformats and against
// Debian's ipfs_cid (rust-cid-npm), an implementation independent of the js UnixFS importer.

const MAX = 64 * 1024 * 1024
// Overridable to point at another build of the tool (and to exercise the skip/fail path).
const IPFS_CID = process.env.IPFS_CID_BIN ?? '/usr/bin/ipfs_cid'

/** A repository that counts putMany calls, to prove an object is written in one go. */
class CountingRepository extends MemoryBlockRepository {
  calls: number[] = []
  override async putMany(blocks: Block[]): Promise<void> {
    this.calls.push(blocks.length)
    await super.putMany(blocks)
  }
}

function newStore(maxBytes = MAX): { store: EmbeddedContentStore; repo: CountingRepository } {
  const repo = new CountingRepository()
  return { store: new EmbeddedContentStore(repo, { maxBytes }), repo }
}

const execFileAsync = promisify(execFile)

/** ipfs_cid prints `{"CIDv0":…,"CIDv1":…}` on stdout and log lines on stderr. */
async function ipfsCid(bytes: Uint8Array): Promise<{ CIDv0: string; CIDv1: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cs-ipfs-cid-'))
  try {
    const file = path.join(dir, 'content.bin')
    await writeFile(file, bytes)
    const { stdout } = await execFileAsync(IPFS_CID, [file], { maxBuffer: 1024 * 1024 })
    const line = stdout.split('\n').find((l) => l.trim().startsWith('{'))
    assert.ok(line, `no JSON line in ipfs_cid output: ${stdout}`)
    return JSON.parse(line) as { CIDv0: string; CIDv1: string }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The reference tool is a test dependency: CI must have it; a laptop without it gets a skip. */
function ipfsCidAvailable(t: { skip: (message: string) => void }): boolean {
  if (existsSync(IPFS_CID)) return true
  if (process.env.CI) assert.fail(`${IPFS_CID} is missing: apt-get install ipfs-cid`)
  t.skip(`${IPFS_CID} not installed (Debian package ipfs-cid); CID cross-check skipped`)
  return false
}

describe('EmbeddedContentStore: CIDs', () => {
  test('single block under DEFAULT_PROFILE is the raw CIDv1 of the bytes and round-trips', async () => {
    const { store, repo } = newStore()
    const bytes = new TextEncoder().encode('{"hello":"world"}')
    const expected = CID.createV1(raw.code, await sha256.digest(bytes)).toString()

    const stored = await store.put(bytes)

    assert.deepEqual(stored, { cid: expected, size: bytes.byteLength })
    assert.deepEqual(await store.get(stored.cid), bytes)
    assert.equal(await store.has(stored.cid), true)
    assert.deepEqual(repo.calls, [1])
  })

  test('empty content is a valid object', async () => {
    const { store } = newStore()
    const empty = new Uint8Array(0)
    const stored = await store.put(empty)
    assert.equal(stored.cid, CID.createV1(raw.code, await sha256.digest(empty)).toString())
    assert.deepEqual(await store.get(stored.cid), empty)
  })

  test('1 MB under KUBO_DEFAULT_PROFILE matches ipfs_cid, in one putMany', async (t) => {
    if (!ipfsCidAvailable(t)) return
    const { store, repo } = newStore()
    const bytes = pseudoRandomBytes(1_000_000)
    const reference = await ipfsCid(bytes)

    const started = performance.now()
    const stored = await store.put(bytes, { profile: KUBO_DEFAULT_PROFILE })
    t.diagnostic(`put 1 MB (5 blocks): ${(performance.now() - started).toFixed(1)} ms`)

    assert.equal(stored.cid, reference.CIDv0)
    assert.deepEqual(repo.calls, [5], '4 leaves and a root, written together')
    assert.deepEqual(await store.get(stored.cid), bytes)

    // ipfs_cid's "CIDv1" is the same root re-spelled (dag-pb, same multihash, as `ipfs cid
    // format -v 1` prints), not a CIDv1 import: importing with { cidVersion: 1, rawLeaves: false }
    // puts CIDv1 links in the root node, which changes its hash. So it is checked as a spelling
    // of the stored object, not against that profile.
    assert.equal(reference.CIDv1, CID.parse(reference.CIDv0).toV1().toString())
    assert.deepEqual(await store.get(reference.CIDv1), bytes)
    const v1Import = await store.put(bytes, { profile: { cidVersion: 1, rawLeaves: false, chunkSize: 262_144 } })
    assert.equal(CID.parse(v1Import.cid).version, 1)
    assert.deepEqual(await store.get(v1Import.cid), bytes)
  })

  test("more than 174 chunks uses Kubo's 174-link layout (matches ipfs_cid)", async (t) => {
    if (!ipfsCidAvailable(t)) return
    const { store } = newStore()
    const bytes = pseudoRandomBytes(174 * 262_144 + 5_000, 7)
    const reference = await ipfsCid(bytes)
    const stored = await store.put(bytes, { profile: KUBO_DEFAULT_PROFILE })
    assert.equal(stored.cid, reference.CIDv0)
  })

  test('a 1 MB file is 4 raw leaves and a dag-pb root under DEFAULT_PROFILE', async () => {
    const { store, repo } = newStore()
    const bytes = pseudoRandomBytes(1_000_000, 3)
    const stored = await store.put(bytes, { profile: DEFAULT_PROFILE })
    const root = CID.parse(stored.cid)
    assert.equal(root.version, 1)
    assert.equal(root.code, 0x70)
    assert.equal(repo.size, 5)
    assert.deepEqual(repo.calls, [5], 'one putMany for the whole object')
    assert.deepEqual(await store.get(stored.cid), bytes)
  })

  test('putting the same bytes twice gives the same CID and keeps one copy of each block', async () => {
    const { store, repo } = newStore()
    const bytes = pseudoRandomBytes(600_000, 11)
    const a = await store.put(bytes)
    const b = await store.put(bytes)
    assert.equal(a.cid, b.cid)
    assert.equal(repo.size, 4)
  })

  test('a bad profile is a ValidationError', async () => {
    const { store } = newStore()
    const bad: ImportProfile[] = [
      { cidVersion: 1, rawLeaves: true, chunkSize: 0 },
      { cidVersion: 1, rawLeaves: true, chunkSize: 2 * 1024 * 1024 },
      { cidVersion: 2 as 1, rawLeaves: true, chunkSize: 1024 },
    ]
    for (const profile of bad) {
      await assert.rejects(store.put(new Uint8Array(10), { profile }), ValidationError)
    }
  })
})

describe('EmbeddedContentStore: errors', () => {
  test('unknown CID -> NotFoundError (get and CAR), has() false', async () => {
    const { store } = newStore()
    const unknown = CID.createV1(raw.code, await sha256.digest(new Uint8Array([1, 2, 3]))).toString()
    await assert.rejects(store.get(unknown), NotFoundError)
    await assert.rejects(collect(store.exportCar(unknown)), NotFoundError)
    assert.equal(await store.has(unknown), false)
  })

  test('malformed CID -> ValidationError', async () => {
    const { store } = newStore()
    for (const bad of ['', 'not-a-cid', 'Qm123', 'bafy!!!']) {
      await assert.rejects(store.get(bad), ValidationError)
      await assert.rejects(store.has(bad), ValidationError)
      await assert.rejects(collect(store.exportCar(bad)), ValidationError)
    }
  })

  test('put over maxBytes -> PayloadTooLargeError, nothing written', async () => {
    const { store, repo } = newStore(1024)
    await assert.rejects(store.put(new Uint8Array(1025)), PayloadTooLargeError)
    assert.equal(repo.calls.length, 0)
    await store.put(new Uint8Array(1024))
  })

  test('get with maxBytes below the size -> PayloadTooLargeError, also for multi-block files', async () => {
    const { store } = newStore()
    const small = await store.put(new Uint8Array(100))
    await assert.rejects(store.get(small.cid, { maxBytes: 99 }), PayloadTooLargeError)
    assert.equal((await store.get(small.cid, { maxBytes: 100 })).byteLength, 100)

    const big = await store.put(pseudoRandomBytes(700_000))
    await assert.rejects(store.get(big.cid, { maxBytes: 699_999 }), PayloadTooLargeError)
  })

  test('a CID that is not a UnixFS file (directory, dag-cbor) -> UnprocessableError', async () => {
    const repo = new MemoryBlockRepository()
    const store = new EmbeddedContentStore(repo, { maxBytes: MAX })
    // UnixFS Data { Type: Directory } (field 1, varint 1), no links: an empty directory.
    const dirBytes = dagPb.encode({ Data: Uint8Array.of(0x08, 0x01), Links: [] })
    const dir = CID.createV1(dagPb.code, await sha256.digest(dirBytes))
    const cborBytes = Uint8Array.of(0xa1, 0x61, 0x61, 0x01) // {"a": 1}
    const cbor = CID.createV1(0x71, await sha256.digest(cborBytes))
    await repo.putMany([
      { cid: blockKey(dir), bytes: dirBytes },
      { cid: blockKey(cbor), bytes: cborBytes },
    ])
    await assert.rejects(store.get(dir.toString()), UnprocessableError)
    await assert.rejects(store.get(cbor.toString()), UnprocessableError)
    await assert.rejects(collect(store.exportCar(cbor.toString())), UnprocessableError)
  })

  test('a missing leaf is a NotFoundError, not a short read', async () => {
    const full = newStore()
    const bytes = pseudoRandomBytes(600_000, 5)
    const stored = await full.store.put(bytes)
    const car = await CarReader.fromBytes(await collect(full.store.exportCar(stored.cid)))
    const partial = new MemoryBlockRepository()
    const blocks = await collectBlocks(car)
    await partial.putMany(blocks.slice(0, -1).map((b) => ({ cid: blockKey(b.cid), bytes: b.bytes })))
    const store = new EmbeddedContentStore(partial, { maxBytes: MAX })
    await assert.rejects(store.get(stored.cid), NotFoundError)
    await assert.rejects(collect(store.exportCar(stored.cid)), NotFoundError)
  })
})

test('check() passes over a working repository and reports a failing one as DependencyUnavailableError', async () => {
  await newStore().store.check()
  class BrokenRepository extends MemoryBlockRepository {
    override async has(): Promise<boolean> {
      throw new Error('connection refused')
    }
  }
  const broken = new EmbeddedContentStore(new BrokenRepository(), { maxBytes: MAX })
  await assert.rejects(broken.check(), DependencyUnavailableError)
})

async function collectBlocks(car: CarReader): Promise<{ cid: CID; bytes: Uint8Array }[]> {
  const blocks: { cid: CID; bytes: Uint8Array }[] = []
  for await (const block of car.blocks()) blocks.push(block)
  return blocks
}

describe('EmbeddedContentStore: CAR export', () => {
  for (const [name, profile] of [
    ['DEFAULT_PROFILE', DEFAULT_PROFILE],
    ['KUBO_DEFAULT_PROFILE', KUBO_DEFAULT_PROFILE],
  ] as const) {
    test(`CARv1 of a multi-block file (${name}) holds the whole DAG and rebuilds the file`, async () => {
      const { store } = newStore()
      const bytes = pseudoRandomBytes(1_000_000, 42)
      const stored = await store.put(bytes, { profile })

      const car = await CarReader.fromBytes(await collect(store.exportCar(stored.cid)))
      assert.equal(car.version, 1)
      const roots = await car.getRoots()
      assert.deepEqual(
        roots.map((r) => r.toString()),
        [stored.cid],
      )

      const blocks = await collectBlocks(car)
      assert.equal(blocks.length, 5)
      assert.equal(blocks[0]?.cid.toString(), stored.cid, 'root first, as ipfs dag export')
      for (const { cid, bytes: blockBytes } of blocks) {
        assert.equal(cid.multihash.code, sha256.code)
        const digest = createHash('sha256').update(blockBytes).digest()
        assert.deepEqual(new Uint8Array(cid.multihash.digest), new Uint8Array(digest), `block ${cid} hashes to its CID`)
      }

      const fresh = new MemoryBlockRepository()
      await fresh.putMany(blocks.map((b) => ({ cid: blockKey(b.cid), bytes: b.bytes })))
      const rebuilt = new EmbeddedContentStore(fresh, { maxBytes: MAX })
      assert.deepEqual(await rebuilt.get(stored.cid), bytes)
    })
  }

  test('CAR of a single raw block', async () => {
    const { store } = newStore()
    const bytes = new TextEncoder().encode('one block')
    const stored = await store.put(bytes)
    const car = await CarReader.fromBytes(await collect(store.exportCar(stored.cid)))
    const blocks = await collectBlocks(car)
    assert.equal(blocks.length, 1)
    assert.deepEqual(blocks[0]?.bytes, bytes)
  })

  test('a block shared by two links is exported once', async () => {
    const { store } = newStore()
    // Three identical 256 KiB chunks: one leaf, linked three times from the root.
    const bytes = new Uint8Array(3 * 262_144).fill(7)
    const stored = await store.put(bytes)
    const blocks = await collectBlocks(await CarReader.fromBytes(await collect(store.exportCar(stored.cid))))
    assert.equal(blocks.length, 2)
    assert.deepEqual(await store.get(stored.cid), bytes)
  })
})
