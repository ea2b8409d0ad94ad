/**
 * Guarded POST for callbacks. Real parts: node:http servers on loopback, real sockets, the real
 * `lookup` hook and IP-range policy. Faked: DNS (the `resolveHost` edge) where a test names a
 * host that does not exist.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createGuardedPost, type GuardedPostOptions } from '../../src/adapters/http-out/guarded-post.js'
import { DependencyUnavailableError, ValidationError } from '../../src/errors.js'

interface Hit {
  url: string
  headers: http.IncomingHttpHeaders
  body: Buffer
}

const isValidation = (pattern: RegExp) => (e: unknown) => e instanceof ValidationError && pattern.test(e.message)
const isUnavailable = (pattern: RegExp) => (e: unknown) =>
  e instanceof DependencyUnavailableError && pattern.test(e.message)
const body = new Uint8Array(Buffer.from('{"id":"e1"}'))

describe('createGuardedPost', () => {
  let server: http.Server
  let port: number
  const hits: Hit[] = []
  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        hits.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) })
        if (req.url === '/ok') res.writeHead(204).end()
        else if (req.url === '/fail') res.writeHead(500).end('boom')
        else if (req.url === '/redirect') res.writeHead(302, { location: '/ok' }).end()
        else if (req.url === '/hang') {
          // never answers
        } else if (req.url === '/stall-body') {
          res.writeHead(200, { 'content-type': 'text/plain' })
          res.write('partial')
        } else if (req.url === '/endless') {
          res.writeHead(200, { 'content-type': 'text/plain' })
          const chunk = 'z'.repeat(8192)
          const pump = () => {
            while (res.write(chunk)) {
              if (res.destroyed) return
            }
            res.once('drain', pump)
          }
          res.on('error', () => undefined)
          pump()
        } else res.writeHead(404).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  const open: GuardedPostOptions = { allowPrivate: true, timeoutMs: 1000 }
  const guarded: GuardedPostOptions = { allowPrivate: false, timeoutMs: 1000 }

  it('posts the exact bytes with the given headers and answers the status', async () => {
    const res = await createGuardedPost(open)(`http://127.0.0.1:${port}/ok`, body, {
      'content-type': 'application/json',
      'x-event-id': 'e1',
    })
    assert.equal(res.status, 204)
    const hit = hits.at(-1)!
    assert.equal(hit.url, '/ok')
    assert.deepEqual(new Uint8Array(hit.body), body)
    assert.equal(hit.headers['content-type'], 'application/json')
    assert.equal(hit.headers['x-event-id'], 'e1')
    assert.equal(hit.headers['content-length'], String(body.length))
  })

  it('answers a non-2xx status as is', async () => {
    assert.equal((await createGuardedPost(open)(`http://127.0.0.1:${port}/fail`, body, {})).status, 500)
  })

  it('never follows a redirect: the 3xx is the answer', async () => {
    const before = hits.length
    const res = await createGuardedPost(open)(`http://127.0.0.1:${port}/redirect`, body, {})
    assert.equal(res.status, 302)
    assert.equal(hits.length, before + 1, 'the redirect target was not called')
  })

  it('refuses loopback literals and names that resolve to loopback, without connecting', async () => {
    const post = createGuardedPost(guarded)
    const before = hits.length
    await assert.rejects(post(`http://127.0.0.1:${port}/ok`, body, {}), isValidation(/loopback.*refused/))
    await assert.rejects(post(`http://[::ffff:127.0.0.1]:${port}/ok`, body, {}), isValidation(/IPv4-mapped loopback/))
    // A name is checked on what the socket is about to dial (DNS rebinding cannot slip past).
    await assert.rejects(
      post(`http://localhost:${port}/ok`, body, {}),
      isValidation(/localhost resolves to a loopback/),
    )
    const rebinding = createGuardedPost({ ...guarded, resolveHost: async () => [{ address: '127.0.0.1', family: 4 }] })
    await assert.rejects(
      rebinding(`http://hooks.example.test:${port}/ok`, body, {}),
      isValidation(/hooks.example.test resolves to a loopback/),
    )
    const metadata = createGuardedPost({
      ...guarded,
      resolveHost: async () => [{ address: '169.254.169.254', family: 4 }],
    })
    await assert.rejects(metadata('http://metadata.test/latest', body, {}), isValidation(/link-local/))
    assert.equal(hits.length, before)
  })

  it("keeps the path and query (often the receiver's secret) out of error messages", async () => {
    const post = createGuardedPost(guarded)
    await assert.rejects(
      post(`http://127.0.0.1:${port}/ok?token=SECRET`, body, {}),
      (e: unknown) => e instanceof ValidationError && !e.message.includes('SECRET'),
    )
    await assert.rejects(
      post('http://[bad/ok?token=SECRET', body, {}),
      (e: unknown) => e instanceof ValidationError && !e.message.includes('SECRET'),
    )
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const closedPort = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    await assert.rejects(
      createGuardedPost(open)(`http://127.0.0.1:${closedPort}/x?token=SECRET`, body, {}),
      (e: unknown) =>
        e instanceof DependencyUnavailableError &&
        /unreachable \(ECONNREFUSED\)/.test(e.message) &&
        !e.message.includes('SECRET'),
    )
  })

  it('refuses URLs that are not http(s) or carry credentials', async () => {
    const post = createGuardedPost(open)
    await assert.rejects(post('ftp://example.com/', body, {}), isValidation(/Only http and https/))
    await assert.rejects(post(`http://user:pw@127.0.0.1:${port}/ok`, body, {}), isValidation(/credentials/))
    await assert.rejects(post('not a url', body, {}), isValidation(/Not a valid URL/))
  })

  it('times out a receiver that never answers', async () => {
    // The receiver never answers: only the limit, which the error names, can end the call.
    await assert.rejects(
      createGuardedPost({ ...open, timeoutMs: 150 })(`http://127.0.0.1:${port}/hang`, body, {}),
      isUnavailable(/did not answer within 150 ms/),
    )
  })

  it('takes the status once it arrived, even when the body stalls or never ends', async () => {
    const post = createGuardedPost({ ...open, timeoutMs: 300, maxResponseBytes: 4096 })
    assert.equal((await post(`http://127.0.0.1:${port}/stall-body`, body, {})).status, 200)
    // With a limit far beyond the test's own, only the size cap can end the endless body: a
    // call that waited for the timeout instead would fail the test by its timeout.
    const capped = createGuardedPost({ ...open, timeoutMs: 3_600_000, maxResponseBytes: 4096 })
    assert.equal((await capped(`http://127.0.0.1:${port}/endless`, body, {})).status, 200)
  })
})
