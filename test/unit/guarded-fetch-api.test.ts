/**
 * The WHATWG fetch face of the guarded request (what @openid4vc/* clients are given). Real
 * node:http servers on loopback; the address policy is the real one, so a loopback target is
 * refused unless `allowPrivate` says otherwise.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createGuardedRequest } from '../../src/adapters/http-out/guarded-fetch.js'
import { fetchApiOver } from '../../src/adapters/http-out/guarded-fetch-api.js'
import { ValidationError } from '../../src/errors.js'

describe('fetchApiOver(createGuardedRequest)', () => {
  let server: http.Server
  let origin: string
  const seen: Array<{ method: string; url: string; type: string | undefined; auth: string | undefined; body: string }> =
    []

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        seen.push({
          method: req.method!,
          url: req.url!,
          type: req.headers['content-type'],
          auth: req.headers.authorization,
          body: Buffer.concat(chunks).toString(),
        })
        if (req.url === '/moved') return res.writeHead(302, { location: '/json' }).end()
        if (req.url === '/empty') return res.writeHead(204).end()
        res
          .writeHead(req.url === '/refuse' ? 400 : 200, { 'content-type': 'application/json', 'dpop-nonce': 'n-1' })
          .end(JSON.stringify({ ok: req.url !== '/refuse', path: req.url }))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const allowed = fetchApiOver(createGuardedRequest({ allowPrivate: true, timeoutMs: 2000, maxBytes: 4096 }))

  it('sends a form POST with its headers and answers status, headers and body', async () => {
    const res = await allowed(`${origin}/token`, {
      method: 'POST',
      headers: { authorization: 'DPoP abc' },
      body: new URLSearchParams({ grant_type: 'x', code: 'y z' }),
    })
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('dpop-nonce'), 'n-1')
    assert.deepEqual(await res.json(), { ok: true, path: '/token' })
    const last = seen.at(-1)!
    assert.equal(last.method, 'POST')
    assert.match(last.type ?? '', /^application\/x-www-form-urlencoded/)
    assert.equal(last.auth, 'DPoP abc')
    assert.equal(last.body, 'grant_type=x&code=y+z')
  })

  it('answers an error status as a response, for the protocol client to read', async () => {
    const res = await allowed(`${origin}/refuse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    assert.equal(res.status, 400)
    assert.equal(res.ok, false)
    assert.deepEqual(await res.json(), { ok: false, path: '/refuse' })
  })

  it('follows a redirect of a GET, never of a POST', async () => {
    assert.deepEqual(await (await allowed(`${origin}/moved`)).json(), { ok: true, path: '/json' })
    const posted = await allowed(`${origin}/moved`, { method: 'POST', body: 'x' })
    assert.equal(posted.status, 302)
  })

  it('answers a 204 with no body', async () => {
    const res = await allowed(`${origin}/empty`, { method: 'POST', body: '{}' })
    assert.equal(res.status, 204)
    assert.equal(await res.text(), '')
  })

  it('refuses a private address under the default policy (SSRF guard), whatever the method', async () => {
    const guarded = fetchApiOver(createGuardedRequest({ allowPrivate: false, timeoutMs: 2000, maxBytes: 4096 }))
    const before = seen.length
    await assert.rejects(
      guarded(`${origin}/token`, { method: 'POST', body: 'x' }),
      (e: unknown) => e instanceof ValidationError && /loopback/.test(e.message),
    )
    assert.equal(seen.length, before, 'nothing reached the server')
  })
})
