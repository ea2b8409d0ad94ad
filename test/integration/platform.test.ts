import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'
import { bearer, DidClient } from '../helpers/did-client.js'
import { ADMIN_KEY, createTestApp, type TestApp } from '../helpers/test-app.js'

describe('health, metrics, OpenAPI', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())

  it('reports database and dependency state with the version', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' })
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(body.status, 'ok')
    assert.match(body.version, /^\d+\.\d+\.\d+/)
    assert.equal(body.checks.database.status, 'up')
    assert.equal(body.checks.content_store.status, 'up')
    assert.equal(body.checks.blockchain.status, 'not_configured')
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/health/live' })).statusCode, 200)
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/health/ready' })).statusCode, 200)
  })

  it('serves Prometheus metrics labelled by route pattern, never by raw DID', async () => {
    const did = new DidClient().did
    await t.app.inject({ method: 'POST', url: '/api/auth/challenge', payload: { did } })
    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    assert.equal(res.statusCode, 200)
    assert.match(res.headers['content-type'] as string, /text\/plain/)
    assert.match(
      res.body,
      /http_request_duration_seconds_count\{method="POST",route="\/api\/auth\/challenge",status="200"\} \d+/,
    )
    assert.ok(!res.body.includes(did))
  })

  it('reports the heap left alive by the latest major garbage collection', async () => {
    v8.setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    gc()
    // PerformanceObserver delivers the gc entry asynchronously.
    await new Promise((resolve) => setTimeout(resolve, 50))
    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    const bytes = Number(/^nodejs_heap_used_after_major_gc_bytes (\d+)$/m.exec(res.body)?.[1])
    const used = Number(/^nodejs_heap_size_used_bytes (\d+)$/m.exec(res.body)?.[1])
    assert.ok(bytes > 1e6, `after-GC heap ${bytes}`)
    // What survived a full collection cannot exceed what is in use a moment later by much.
    assert.ok(bytes <= used * 1.5, `after-GC ${bytes}, used ${used}`)
  })

  it('serves an OpenAPI 3 document generated from the route schemas, and the UI', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' })
    assert.equal(res.statusCode, 200)
    const doc = res.json()
    assert.match(doc.openapi, /^3\./)
    for (const path of [
      '/api/auth/challenge',
      '/api/auth/verify-challenge',
      '/api/auth/login',
      '/api/auth/register',
      '/api/auth/profile',
      '/api/did/{did}',
      '/api/health',
    ]) {
      assert.ok(doc.paths[path], `missing ${path}`)
    }
    const challengeBody = doc.paths['/api/auth/challenge'].post.requestBody.content['application/json'].schema
    assert.deepEqual(challengeBody.required, ['did'])
    const ui = await t.app.inject({ method: 'GET', url: '/api/docs' })
    assert.ok([200, 302].includes(ui.statusCode))
    // Every asset the UI loads is public too.
    for (const asset of [
      '/api/docs/static/index.html',
      '/api/docs/static/swagger-initializer.js',
      '/api/docs/static/swagger-ui.css',
    ]) {
      const res = await t.app.inject({ method: 'GET', url: asset })
      assert.ok([200, 302].includes(res.statusCode), `${asset}: ${res.statusCode}`)
    }
  })

  it('sets security headers and echoes a request id', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health', headers: { 'x-request-id': 'abc-123' } })
    assert.equal(res.headers['x-content-type-options'], 'nosniff')
    assert.equal(res.headers['x-request-id'], 'abc-123')
  })
})

describe('health when the database is down', () => {
  it('turns unhealthy (503) and protected routes answer without leaking internals', async () => {
    const t = await createTestApp()
    const token = await new DidClient().login(t.app)
    await t.deps.database.close()
    const res = await t.app.inject({ method: 'GET', url: '/api/health/ready' })
    assert.equal(res.statusCode, 503)
    assert.equal(res.json().checks.database.status, 'down')
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) })
    assert.ok(me.statusCode >= 500)
    assert.equal(me.json().success, false)
    assert.ok(!/password|postgres:\/\/|stack/i.test(me.body))
    t.deps.database.close = async () => undefined
    await t.close()
  })
})

describe('admin group', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())
  const admin = { 'x-admin-key': ADMIN_KEY }

  it('needs the admin key', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/admin/keys' })).statusCode, 401)
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/admin/keys', headers: { 'x-admin-key': 'wrong-key-wrong-key' } }))
        .statusCode,
      401,
    )
    // A user token is not an admin key.
    const token = await new DidClient().login(t.app)
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/admin/keys', headers: bearer(token) })).statusCode,
      401,
    )
  })

  it('generates a DID without storing it', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/admin/generate-did', headers: admin })
    assert.equal(res.statusCode, 200)
    assert.match(res.json().did, /^did:key:z6Mk/)
    assert.ok(res.json().private_key)
  })

  it('rotates the JWT key: new tokens use the new key, old tokens still verify', async () => {
    const alice = new DidClient()
    const oldToken = await alice.login(t.app)
    const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/keys/rotate',
      headers: admin,
      payload: { purpose: 'jwt' },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().retired.kid, kidOf(oldToken))
    assert.equal(res.json().retired.status, 'retired')
    const newToken = await alice.login(t.app)
    assert.equal(kidOf(newToken), res.json().active.kid)
    for (const token of [oldToken, newToken]) {
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) })).statusCode, 200)
    }
    const keys = await t.app.inject({ method: 'GET', url: '/api/admin/keys?purpose=jwt', headers: admin })
    assert.deepEqual(
      keys
        .json()
        .keys.map((k: { status: string }) => k.status)
        .sort(),
      ['active', 'retired'],
    )
    assert.ok(!keys.body.includes('private'))
  })

  it('registers a holder DID, which can then resolve and log in; duplicates conflict', async () => {
    const key = new DidClient()
    const payload = {
      did: 'did:example:holder-1',
      public_key: Buffer.from(key.publicKey).toString('base64'),
      name: 'H',
    }
    const res = await t.app.inject({ method: 'POST', url: '/api/admin/holders/register', headers: admin, payload })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/admin/holders/register', headers: admin, payload })).statusCode,
      409,
    )
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/admin/holders/register',
          headers: admin,
          payload: { did: 'nope' },
        })
      ).statusCode,
      400,
    )
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: await key.proof(t.app, 'did:example:holder-1'),
    })
    assert.equal(login.statusCode, 200)
  })
})

describe('admin group without ADMIN_API_KEY', () => {
  it('does not exist (404)', async () => {
    const t = await createTestApp({ env: { ADMIN_API_KEY: '' } })
    try {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/admin/keys',
        headers: { 'x-admin-key': 'anything-anything' },
      })
      assert.equal(res.statusCode, 404)
    } finally {
      await t.close()
    }
  })
})

describe('IPFS gateway', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp({ env: { CONTENT_MAX_BYTES: '2000000' } })
  })
  after(() => t.close())

  it('serves stored bytes and a CAR of the DAG, immutable only on success', async () => {
    const { CarReader } = await import('@ipld/car')
    const bytes = Buffer.alloc(600_000, 7)
    const { cid } = await t.deps.content.put(bytes)
    const raw = await t.app.inject({ method: 'GET', url: `/api/ipfs/${cid}` })
    assert.equal(raw.statusCode, 200)
    assert.deepEqual(raw.rawPayload, bytes)
    assert.match(raw.headers['cache-control'] as string, /immutable/)
    const car = await t.app.inject({ method: 'GET', url: `/api/ipfs/${cid}?format=car` })
    assert.equal(car.statusCode, 200)
    assert.match(car.headers['content-type'] as string, /application\/vnd\.ipld\.car/)
    const reader = await CarReader.fromBytes(car.rawPayload)
    assert.deepEqual((await reader.getRoots()).map(String), [cid])

    const unknown = await t.app.inject({
      method: 'GET',
      url: '/api/ipfs/bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy',
    })
    assert.equal(unknown.statusCode, 404)
    assert.ok(!String(unknown.headers['cache-control'] ?? '').includes('immutable'))
    const malformed = await t.app.inject({ method: 'GET', url: '/api/ipfs/not-a-cid-at-all' })
    assert.equal(malformed.statusCode, 400)
    assert.ok(malformed.json().message)
  })
})
