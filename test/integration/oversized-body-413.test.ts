/**
 * An oversized body is answered 413 with its JSON message, and the client reads that answer
 * (RFC 9112 §9.6 lingering close), over a real socket: app.inject never opens one.
 *
 * Real: the whole app listening on 127.0.0.1 (port 0) on the engine under test; the clients are
 * Node's fetch (undici) and node:http, neither sending `Expect: 100-continue`, and a raw TCP
 * socket for the client that never stops sending.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { LINGER_MAX_BYTES } from '../../src/plugins/lingering-close.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'

const MIB = 1024 * 1024
/** A public route with the small body limit (64 KiB by default). */
const ROUTE = '/api/auth/challenge'

/** A JSON document of `bytes` bytes. */
const jsonOf = (bytes: number): Buffer => {
  const body = Buffer.alloc(bytes, 0x78)
  body.write('{"did":"did:example:1","padding":"')
  body.write('"}', bytes - 2)
  return body
}

/**
 * node:http without Expect: the body is written whole, whatever the server answers meanwhile.
 * `requestErrors` collects what the request reported besides its answer (a reset shows as EPIPE).
 */
type Answer = { status: number; json: Record<string, unknown> }

function httpPost(base: string, body: Buffer, chunked: boolean): Promise<Answer & { requestErrors: string[] }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json' }
    if (!chunked) headers['content-length'] = body.length
    const requestErrors: string[] = []
    let answer: Answer | undefined
    const req = http.request(`${base}${ROUTE}`, { method: 'POST', headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (text += c))
      res.on('end', () => (answer = { status: res.statusCode!, json: JSON.parse(text) as Record<string, unknown> }))
    })
    req.on('error', (error: NodeJS.ErrnoException) => requestErrors.push(error.code ?? error.message))
    // Settles once the socket is gone, so an error after the answer is seen too.
    req.on('close', () =>
      answer ? resolve({ ...answer, requestErrors }) : reject(new Error(`no answer: ${requestErrors.join(', ')}`)),
    )
    // Written in 64 KiB pieces, as an SDK streaming a file would.
    for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024))
    req.end()
  })
}

/**
 * A client that reads only once it has sent its whole request (as many simple HTTP clients do):
 * the status line and JSON body it then finds, or the error that ended it first.
 */
async function sendThenRead(port: number, body: Buffer): Promise<Answer> {
  const socket = net.connect(port, '127.0.0.1')
  socket.pause()
  const failed = new Promise<never>((_, reject) => socket.once('error', reject))
  failed.catch(() => undefined)
  await Promise.race([new Promise((resolve) => socket.once('connect', resolve)), failed])
  const written = (chunk: string | Buffer) =>
    new Promise<void>((resolve, reject) => socket.write(chunk, (e) => (e ? reject(e) : resolve())))
  const write = (chunk: string | Buffer) => Promise.race([written(chunk), failed])
  await write(
    `POST ${ROUTE} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
  )
  for (let at = 0; at < body.length; at += 64 * 1024) await write(body.subarray(at, at + 64 * 1024))
  const chunks: Buffer[] = []
  socket.on('data', (c: Buffer) => chunks.push(c))
  socket.resume()
  await Promise.race([new Promise((resolve) => socket.once('end', resolve)), failed])
  socket.destroy()
  const text = Buffer.concat(chunks).toString('utf8')
  const [head, json] = text.split('\r\n\r\n')
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head!)?.[1]), json: JSON.parse(json!) as Record<string, unknown> }
}

describe(`an oversized body gets its 413 over a real socket (${TEST_ENGINE})`, () => {
  let t: TestApp
  let base: string
  let port: number

  before(async () => {
    t = await createTestApp()
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as AddressInfo).port
    base = `http://127.0.0.1:${port}`
  })
  after(() => t.close())

  const expect413 = (res: { status: number; json: Record<string, unknown> }) => {
    assert.equal(res.status, 413)
    assert.equal(res.json.code, 'PAYLOAD_TOO_LARGE')
    assert.equal(res.json.message, 'Request body is too large')
  }

  for (const size of [5 * MIB, 50 * MIB]) {
    it(`fetch (undici) reads the 413 and its message for a ${size / MIB} MiB body with a Content-Length`, async () => {
      const res = await fetch(`${base}${ROUTE}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: jsonOf(size),
      })
      expect413({ status: res.status, json: (await res.json()) as Record<string, unknown> })
    })

    it(`fetch (undici) reads the 413 for a ${size / MIB} MiB streamed (chunked) body`, async () => {
      const body = jsonOf(size)
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < body.length; at += MIB) controller.enqueue(body.subarray(at, at + MIB))
          controller.close()
        },
      })
      const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' }
      const res = await fetch(`${base}${ROUTE}`, init as RequestInit)
      expect413({ status: res.status, json: (await res.json()) as Record<string, unknown> })
    })

    it(`node:http reads the 413 and its message for a ${size / MIB} MiB body, no reset, with a Content-Length and chunked`, async () => {
      for (const chunked of [false, true]) {
        const res = await httpPost(base, jsonOf(size), chunked)
        expect413(res)
        assert.deepEqual(res.requestErrors, [], `chunked: ${chunked}`)
      }
    })

    it(`a client that sends its whole ${size / MIB} MiB body before reading still reads the 413`, async () => {
      expect413(await sendThenRead(port, jsonOf(size)))
    })
  }

  it('stays healthy after them: several oversized bodies at once, then a normal request', async () => {
    const results = await Promise.all([1, 2, 3, 4].map(() => httpPost(base, jsonOf(5 * MIB), false)))
    for (const res of results) {
      expect413(res)
      assert.deepEqual(res.requestErrors, [])
    }
    const health = await fetch(`${base}/api/health/live`)
    assert.equal(health.status, 200)
  })

  it('cuts off a client that keeps sending after its 413, once the discarded bytes pass the bound', async () => {
    // allowHalfOpen: it ignores the server's half-close and keeps writing.
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true })
    await new Promise<void>((resolve) => socket.once('connect', resolve))
    let answer = ''
    socket.on('data', (c: Buffer) => (answer += c.toString('latin1')))
    // Announces far more than it will ever be allowed to send, then sends until the server stops it.
    const head = `POST ${ROUTE} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n`
    socket.write(`${head}Content-Length: ${1024 * 1024 * MIB}\r\n\r\n`)
    const piece = Buffer.alloc(256 * 1024, 0x78)
    let sent = 0
    const closed = new Promise<void>((resolve) => {
      socket.on('error', () => resolve())
      socket.on('close', () => resolve())
    })
    let open = true
    void closed.then(() => (open = false))
    while (open && sent < 4 * LINGER_MAX_BYTES) {
      if (!socket.write(piece)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed])
      sent += piece.length
    }
    assert.equal(open, false, `still open after ${sent} bytes`)
    assert.ok(sent < 2 * LINGER_MAX_BYTES, `cut off after ${sent} bytes`)
    assert.match(answer, /^HTTP\/1\.1 413 /)
    const health = await fetch(`${base}/api/health/live`)
    assert.equal(health.status, 200)
  })
})
