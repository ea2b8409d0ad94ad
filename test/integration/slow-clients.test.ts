import assert from 'node:assert/strict'
import net from 'node:net'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { DidClient } from '../helpers/did-client.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { multipart } from '../helpers/wallet-fixtures.js'

// Short limits so the test takes seconds: the server's defaults are the same mechanism, longer.
const WINDOW_MS = 1000
const HEADERS_TIMEOUT_MS = 1000
const REQUEST_TIMEOUT_MS = 8000
/**
 * How long to wait for a cut before calling the connection still open: a hang detector, far
 * beyond the server's limits above, so that a loaded machine only makes the test slower.
 */
const CUT_WITHIN_MS = 30_000

interface Conn {
  socket: net.Socket
  /** Resolves when the server closes the connection: what it answered, and when. */
  closed: Promise<{ afterMs: number; response: string }>
  /** Sends `chunk` every `everyMs` until closed. */
  trickle(chunk: string | Buffer, everyMs: number): void
  /** Bytes written so far, the first write included. */
  sent(): number
}

function connect(port: number, first: string | Buffer): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = net.connect(port, '127.0.0.1')
    let response = ''
    let timer: NodeJS.Timeout | undefined
    let sent = 0
    const write = (chunk: string | Buffer) => {
      socket.write(chunk)
      sent += Buffer.byteLength(chunk)
    }
    socket.on('data', (d) => (response += d.toString()))
    // A reset after the server's answer is how a cut looks from here too.
    socket.on('error', () => {})
    const closed = new Promise<{ afterMs: number; response: string }>((done) =>
      socket.on('close', () => {
        clearInterval(timer)
        done({ afterMs: Date.now() - started, response })
      }),
    )
    socket.once('connect', () => {
      write(first)
      resolve({
        socket,
        closed,
        trickle: (chunk, everyMs) => {
          timer = setInterval(() => !socket.destroyed && write(chunk), everyMs)
        },
        sent: () => sent,
      })
    })
    socket.once('error', reject)
  })
}

/** Resolves to the value, or to 'still open' once `ms` have passed. */
const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, sleep(ms).then(() => 'still open' as const)])

describe('slow clients: request and body timeouts over a real socket', () => {
  let t: TestApp
  let port: number
  const holder = new DidClient()
  let token: string

  before(async () => {
    t = await createTestApp({
      env: {
        BODY_RATE_WINDOW_MS: String(WINDOW_MS),
        BODY_MIN_BYTES_PER_SECOND: '500',
        HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      },
    })
    token = await holder.login(t.app)
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as net.AddressInfo).port
  })
  after(() => t.close())

  it('cuts a body sent one byte at a time, with a 408 when the answer gets through', async () => {
    const conn = await connect(
      port,
      'POST /api/auth/challenge HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{',
    )
    conn.trickle(' ', 2000)
    const result = await within(conn.closed, CUT_WITHIN_MS)
    conn.socket.destroy()
    assert.notEqual(result, 'still open', 'a trickling body was not cut')
    if (result !== 'still open' && result.response) assert.match(result.response, /^HTTP\/1\.1 408 /)
  })

  it('cuts headers sent slowly', async () => {
    const conn = await connect(port, 'GET /api/health HTTP/1.1\r\n')
    conn.trickle('X-Slow: 1\r\n', 300)
    const result = await within(conn.closed, CUT_WITHIN_MS)
    conn.socket.destroy()
    assert.notEqual(result, 'still open', 'headers trickled in over seconds were still being waited for')
    if (result !== 'still open' && result.response) assert.match(result.response, /^HTTP\/1\.1 408 /)
  })

  it('cuts a body that keeps the minimum rate but outlasts REQUEST_TIMEOUT_MS', async () => {
    // 5 KiB/s, ten times the minimum rate: the 60,000 bytes (within the route's body limit) take 12 s.
    const head =
      'POST /api/auth/challenge HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n'
    const conn = await connect(port, `${head}{`)
    conn.trickle(' '.repeat(1024), 200)
    const result = await within(conn.closed, REQUEST_TIMEOUT_MS + CUT_WITHIN_MS)
    conn.socket.destroy()
    assert.ok(result !== 'still open', 'a body outlasting REQUEST_TIMEOUT_MS was still being read')
    assert.ok(conn.sent() < head.length + 60000, 'the server waited for the whole body instead of cutting it')
    assert.ok(
      result.afterMs >= REQUEST_TIMEOUT_MS - 500,
      `cut after ${result.afterMs} ms: by the rate guard, not by the total limit`,
    )
    if (result.response) assert.match(result.response, /^HTTP\/1\.1 408 /)
  })

  it('keeps serving, and lets a steady slow upload finish, while 100 connections trickle their bodies', async () => {
    const tricklers = await Promise.all(
      Array.from({ length: 100 }, () =>
        connect(
          port,
          'POST /api/auth/challenge HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{',
        ),
      ),
    )
    for (const c of tricklers) c.trickle(' ', 2000)
    try {
      // An evidence file sent in 4 KiB chunks every 100 ms: about 2.4 s, over two windows.
      const { payload, headers } = multipart([
        { name: 'label', value: 'transcript' },
        { name: 'file', filename: 'notes.txt', contentType: 'text/plain', data: Buffer.alloc(96 * 1024, 'a') },
      ])
      const head = `POST /api/wallet/${holder.did}/evidence/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${headers['content-type']}\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n`
      const upload = await connect(port, head)
      const uploaded = (async () => {
        for (let at = 0; at < payload.length; at += 4096) {
          upload.socket.write(payload.subarray(at, at + 4096))
          await sleep(100)
        }
        return upload.closed
      })()

      const health = await connect(port, 'GET /api/health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
      const served = await within(health.closed, CUT_WITHIN_MS)
      assert.ok(served !== 'still open' && /^HTTP\/1\.1 200 /.test(served.response), 'a plain request was not served')

      const done = await uploaded
      assert.ok(
        done.afterMs > 2 * WINDOW_MS,
        `the upload took only ${done.afterMs} ms: it did not span several windows`,
      )
      assert.match(done.response, /^HTTP\/1\.1 201 /, done.response.slice(0, 300))

      const results = await within(Promise.all(tricklers.map((c) => c.closed)), CUT_WITHIN_MS)
      assert.notEqual(
        results,
        'still open',
        `${tricklers.filter((c) => !c.socket.destroyed && !c.socket.readableEnded).length} trickling connections still open`,
      )
    } finally {
      for (const c of tricklers) c.socket.destroy()
    }
  })
})
