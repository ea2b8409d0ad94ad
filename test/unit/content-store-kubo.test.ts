/**
 * KuboContentStore against a PROTOCOL-LEVEL FAKE of Kubo's HTTP RPC. No Kubo binary can be
 * installed on this machine (no network beyond npm and Debian, and Debian ships no kubo), so a
 * small node:http server on 127.0.0.1 answers the endpoints the adapter calls, in Kubo's wire
 * format (POST /api/v0/..., ndjson add output, `{"Message","Code","Type"}` errors with HTTP 500,
 * raw bytes for cat, a CAR for dag/export). Its content lives in an EmbeddedContentStore, so
 * the CIDs it returns are the ones the embedded store (checked against ipfs_cid elsewhere)
 * computes for the same import settings. What it cannot prove is that a real Kubo accepts these
 * exact parameters and error texts; that needs a run against a live node.
 */
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, beforeEach, describe, test } from 'node:test'
import { CarReader } from '@ipld/car'
import {
  DEFAULT_PROFILE,
  EmbeddedContentStore,
  KUBO_DEFAULT_PROFILE,
  KuboContentStore,
  MemoryBlockRepository,
  blockKey,
  createContentStore,
  type ImportProfile,
} from '../../src/adapters/content-store/index.js'
import { DependencyUnavailableError, NotFoundError, PayloadTooLargeError, ValidationError } from '../../src/errors.js'
import { collect, pseudoRandomBytes } from '../helpers/bytes.js'

const MAX = 8 * 1024 * 1024

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const part of req) parts.push(part as Buffer)
  return Buffer.concat(parts)
}

/** The single file part of kubo-rpc-client's multipart/form-data upload. */
function multipartFile(req: IncomingMessage, body: Buffer): Uint8Array {
  const boundary = /boundary=(.+)$/.exec(req.headers['content-type'] ?? '')?.[1]
  assert.ok(boundary, 'multipart boundary')
  const start = body.indexOf('\r\n\r\n') + 4
  const end = body.lastIndexOf(`\r\n--${boundary}--`)
  return new Uint8Array(body.subarray(start, end))
}

interface Faults {
  /** cat sends only half of the file, as when Kubo fails after the first byte. */
  truncateCat?: boolean
  /** Every call fails with HTTP 500 and this message. */
  error?: string
  /** Requests are accepted and never answered. */
  hang?: boolean
}

class FakeKubo {
  readonly requests: { path: string; params: URLSearchParams }[] = []
  faults: Faults = {}
  private readonly backing = new EmbeddedContentStore(new MemoryBlockRepository(), { maxBytes: 1 << 30 })
  private readonly server: Server = createServer((req, res) => {
    this.handle(req, res).catch((err: unknown) => this.fail(res, err instanceof Error ? err.message : String(err)))
  })

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  calls(path: string): URLSearchParams[] {
    return this.requests.filter((r) => r.path === path).map((r) => r.params)
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const path = url.pathname.replace(/^\/api\/v0\//, '')
    this.requests.push({ path, params: url.searchParams })
    const body = await readBody(req)
    if (this.faults.hang) return
    if (req.method !== 'POST') return this.fail(res, `${req.method} not allowed`, 405)
    if (this.faults.error) return this.fail(res, this.faults.error)
    const arg = url.searchParams.get('arg') ?? ''

    switch (path) {
      case 'version':
        return this.json(res, { Version: '0.34.1', Commit: '', Repo: '16', System: 'amd64/linux', Golang: 'go1.24.4' })
      case 'add': {
        const profile: ImportProfile = {
          cidVersion: url.searchParams.get('cid-version') === '1' ? 1 : 0,
          // Kubo: raw leaves default on exactly when cid-version=1.
          rawLeaves:
            (url.searchParams.get('raw-leaves') ?? String(url.searchParams.get('cid-version') === '1')) === 'true',
          chunkSize: Number(/^size-(\d+)$/.exec(url.searchParams.get('chunker') ?? 'size-262144')?.[1]),
        }
        const bytes = multipartFile(req, body)
        const { cid } = await this.backing.put(bytes, { profile })
        res.writeHead(200, { 'Content-Type': 'application/json', 'X-Chunked-Output': '1', Trailer: 'X-Stream-Error' })
        // Kubo reports the DAG's cumulative size here; the adapter does not read it.
        res.end(`${JSON.stringify({ Name: cid, Hash: cid, Size: String(bytes.byteLength) })}\n`)
        return
      }
      case 'files/stat': {
        const cid = arg.replace(/^\/ipfs\//, '')
        if (!(await this.backing.has(cid))) return this.missing(res, cid)
        const bytes = await this.backing.get(cid)
        return this.json(res, {
          Hash: cid,
          Size: bytes.byteLength,
          CumulativeSize: bytes.byteLength,
          Blocks: 0,
          Type: 'file',
        })
      }
      case 'block/stat':
        if (!(await this.backing.has(arg))) return this.missing(res, arg)
        return this.json(res, { Key: arg, Size: 1 })
      case 'cat': {
        if (!(await this.backing.has(arg))) return this.missing(res, arg)
        let bytes = await this.backing.get(arg)
        const length = url.searchParams.get('length')
        if (length !== null) bytes = bytes.subarray(0, Number(length))
        if (this.faults.truncateCat) bytes = bytes.subarray(0, bytes.byteLength >> 1)
        res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Stream-Output': '1', Trailer: 'X-Stream-Error' })
        res.end(bytes)
        return
      }
      case 'dag/export': {
        if (!(await this.backing.has(arg))) return this.missing(res, arg)
        res.writeHead(200, { 'Content-Type': 'application/vnd.ipld.car', 'X-Stream-Output': '1' })
        for await (const chunk of this.backing.exportCar(arg)) res.write(chunk)
        res.end()
        return
      }
      default:
        return this.fail(res, `unknown command "${path}"`, 404)
    }
  }

  private json(res: ServerResponse, value: unknown): void {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify(value))
  }

  private missing(res: ServerResponse, cid: string): void {
    this.fail(res, `block was not found locally (offline): ipld: could not find ${cid}`)
  }

  private fail(res: ServerResponse, message: string, status = 500): void {
    if (res.headersSent) return void res.destroy()
    res.writeHead(status, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify({ Message: message, Code: 0, Type: 'error' }))
  }
}

/** A port nothing listens on: bound, read, released. */
async function closedPortUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}

describe('KuboContentStore against a fake Kubo RPC', () => {
  const kubo = new FakeKubo()
  let store: KuboContentStore
  let url: string

  before(async () => {
    url = await kubo.start()
    store = new KuboContentStore({ url, maxBytes: MAX, timeoutMs: 2_000 })
  })
  after(() => kubo.stop())
  beforeEach(() => {
    kubo.faults = {}
    kubo.requests.length = 0
  })

  test("put sends the profile as Kubo add options, pins, and returns the embedded store's CID", async () => {
    const bytes = pseudoRandomBytes(1_000_000, 1)
    const local = new EmbeddedContentStore(new MemoryBlockRepository(), { maxBytes: MAX })

    for (const profile of [
      KUBO_DEFAULT_PROFILE,
      DEFAULT_PROFILE,
      { cidVersion: 1, rawLeaves: false, chunkSize: 1024 } as const,
    ]) {
      kubo.requests.length = 0
      const stored = await store.put(bytes, { profile })
      assert.deepEqual(stored, await local.put(bytes, { profile }))
      const [params] = kubo.calls('add')
      assert.ok(params)
      assert.equal(params.get('cid-version'), String(profile.cidVersion))
      assert.equal(params.get('raw-leaves'), String(profile.rawLeaves))
      assert.equal(params.get('chunker'), `size-${profile.chunkSize}`)
      assert.equal(params.get('pin'), 'true')
    }
  })

  test('get round-trips, reads offline, and asks for at most limit + 1 bytes', async () => {
    const bytes = pseudoRandomBytes(300_000, 2)
    const { cid } = await store.put(bytes)
    kubo.requests.length = 0

    assert.deepEqual(await store.get(cid), bytes)
    assert.equal(kubo.calls('files/stat')[0]?.get('offline'), 'true')
    const [cat] = kubo.calls('cat')
    assert.equal(cat?.get('offline'), 'true')
    assert.equal(cat?.get('length'), String(MAX + 1))
    assert.equal(await store.has(cid), true)
    assert.equal(kubo.calls('block/stat')[0]?.get('offline'), 'true')
  })

  test('unknown CID: get and exportCar NotFoundError, has false; malformed CID: ValidationError without a request', async () => {
    const unknown = 'bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'
    await assert.rejects(store.get(unknown), NotFoundError)
    await assert.rejects(collect(store.exportCar(unknown)), NotFoundError)
    assert.equal(await store.has(unknown), false)

    kubo.requests.length = 0
    await assert.rejects(store.get('not-a-cid'), ValidationError)
    await assert.rejects(store.has('Qm123'), ValidationError)
    await assert.rejects(collect(store.exportCar('')), ValidationError)
    assert.equal(kubo.requests.length, 0)
  })

  test('size limits: put over maxBytes never reaches Kubo; get over maxBytes fails before cat', async () => {
    const small = new KuboContentStore({ url, maxBytes: 1000 })
    await assert.rejects(small.put(new Uint8Array(1001)), PayloadTooLargeError)
    assert.equal(kubo.calls('add').length, 0)

    const { cid } = await store.put(pseudoRandomBytes(5000, 3))
    await assert.rejects(store.get(cid, { maxBytes: 4999 }), PayloadTooLargeError)
    await assert.rejects(small.get(cid), PayloadTooLargeError)
    assert.equal(kubo.calls('cat').length, 0)
    assert.equal((await store.get(cid, { maxBytes: 5000 })).byteLength, 5000)
  })

  test('a cat that ends early is a DependencyUnavailableError, not short content', async () => {
    const { cid } = await store.put(pseudoRandomBytes(10_000, 4))
    kubo.faults = { truncateCat: true }
    await assert.rejects(
      store.get(cid),
      (err: unknown) => err instanceof DependencyUnavailableError && /early/.test(err.message),
    )
  })

  test("exportCar streams Kubo's dag export: a CAR rooted at the CID that rebuilds the file", async () => {
    const bytes = pseudoRandomBytes(1_000_000, 5)
    const { cid } = await store.put(bytes, { profile: KUBO_DEFAULT_PROFILE })

    const car = await CarReader.fromBytes(await collect(store.exportCar(cid)))
    assert.deepEqual((await car.getRoots()).map(String), [cid])
    const fresh = new MemoryBlockRepository()
    for await (const block of car.blocks()) await fresh.putMany([{ cid: blockKey(block.cid), bytes: block.bytes }])
    assert.deepEqual(await new EmbeddedContentStore(fresh, { maxBytes: MAX }).get(cid), bytes)
  })

  test('check() calls version; Kubo errors other than "not found" are DependencyUnavailableError', async () => {
    await store.check()
    assert.equal(kubo.calls('version').length, 1)

    kubo.faults = { error: 'failed to acquire repo lock' }
    await assert.rejects(store.check(), DependencyUnavailableError)
    await assert.rejects(store.put(new Uint8Array(10)), DependencyUnavailableError)
    await assert.rejects(
      store.get('bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'),
      DependencyUnavailableError,
    )
    await assert.rejects(
      store.has('bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'),
      DependencyUnavailableError,
    )
  })

  test('a Kubo that accepts but never answers times out as DependencyUnavailableError', async () => {
    kubo.faults = { hang: true }
    const impatient = new KuboContentStore({ url, maxBytes: MAX, timeoutMs: 200 })
    await assert.rejects(
      impatient.check(),
      (err: unknown) => err instanceof DependencyUnavailableError && (err.cause as Error).name === 'TimeoutError',
    )
    await assert.rejects(impatient.put(new Uint8Array(10)), DependencyUnavailableError)
  })

  test('createContentStore picks Kubo when an API URL is given', () => {
    const made = createContentStore({ ipfsApiUrl: url, db: undefined as never, maxBytes: MAX })
    assert.equal(made.kind, 'kubo')
  })
})

test('unreachable Kubo (closed port): every operation is DependencyUnavailableError', async () => {
  const store = new KuboContentStore({ url: await closedPortUrl(), maxBytes: MAX, timeoutMs: 2_000 })
  const cid = 'bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'
  await assert.rejects(store.check(), DependencyUnavailableError)
  await assert.rejects(store.put(new Uint8Array(10)), DependencyUnavailableError)
  await assert.rejects(store.get(cid), DependencyUnavailableError)
  await assert.rejects(store.has(cid), DependencyUnavailableError)
  await assert.rejects(collect(store.exportCar(cid)), DependencyUnavailableError)
})
