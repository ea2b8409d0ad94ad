import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createPrivateKey, createPublicKey, createHmac, sign } from 'node:crypto'
import { bearer, DidClient } from '../helpers/did-client.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'

describe('auth: challenge and login', () => {
  let t: TestApp
  const clock = new ManualClock()
  const alice = new DidClient()
  const bob = new DidClient()

  before(async () => {
    t = await createTestApp({ clock })
  })
  after(() => t.close())

  const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, payload: payload as object })

  it('issues a challenge bound to the DID with an expiry', async () => {
    const res = await post('/api/auth/challenge', { did: alice.did })
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(body.did, alice.did)
    assert.ok(body.challenge.length >= 40)
    assert.equal(new Date(body.expires_at).getTime(), clock.now().getTime() + 300_000)
    const again = (await post('/api/auth/challenge', { did: alice.did })).json()
    assert.notEqual(again.challenge, body.challenge)
  })

  it('logs in with a valid signature and the token works', async () => {
    const proof = await alice.proof(t.app)
    const res = await post('/api/auth/verify-challenge', proof)
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.user.did, alice.did)
    assert.equal(body.user.public_key, alice.did.slice('did:key:'.length))
    assert.equal(body.user.name, '')
    assert.equal(typeof body.token, 'string')
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(body.token) })
    assert.equal(me.statusCode, 200)
    assert.equal(me.json().user.did, alice.did)
  })

  it('POST /login takes the same body and answers success, message, user, token', async () => {
    const res = await post('/api/auth/login', await alice.proof(t.app))
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(typeof body.message, 'string')
    assert.equal(body.user.did, alice.did)
    assert.ok(body.token)
  })

  it('accepts a base64url signature as well as base64', async () => {
    const challenge = await alice.challenge(t.app)
    const signature = Buffer.from(alice.sign(challenge), 'base64').toString('base64url')
    assert.equal((await post('/api/auth/login', { did: alice.did, challenge, signature })).statusCode, 200)
  })

  it('rejects a wrong signature with 401', async () => {
    const challenge = await alice.challenge(t.app)
    const res = await post('/api/auth/verify-challenge', {
      did: alice.did,
      challenge,
      signature: alice.sign(challenge + 'x'),
    })
    assert.equal(res.statusCode, 401)
    assert.equal(res.json().success, false)
    assert.match(res.json().message, /signature/i)
  })

  it('rejects a signature made by another key with 401', async () => {
    const challenge = await alice.challenge(t.app)
    const res = await post('/api/auth/verify-challenge', { did: alice.did, challenge, signature: bob.sign(challenge) })
    assert.equal(res.statusCode, 401)
  })

  it('rejects garbage signatures (not base64, wrong length) with 401', async () => {
    const challenge = await alice.challenge(t.app)
    for (const signature of ['!!!not-base64!!!', Buffer.alloc(10).toString('base64')]) {
      const res = await post('/api/auth/verify-challenge', { did: alice.did, challenge, signature })
      assert.equal(res.statusCode, 401, signature)
    }
  })

  it('rejects a forged challenge (never issued) with 401', async () => {
    const forged = `v1.login.${Buffer.alloc(16, 7).toString('base64url')}.${Math.floor(clock.now().getTime() / 1000) + 300}.${createHmac('sha256', 'guess').update('x').digest('base64url')}`
    const res = await post('/api/auth/verify-challenge', {
      did: alice.did,
      challenge: forged,
      signature: alice.sign(forged),
    })
    assert.equal(res.statusCode, 401)
    assert.equal(
      (await post('/api/auth/verify-challenge', { did: alice.did, challenge: 'hello', signature: alice.sign('hello') }))
        .statusCode,
      401,
    )
  })

  it('rejects a challenge whose expiry was edited with 401', async () => {
    const challenge = await alice.challenge(t.app)
    const parts = challenge.split('.')
    parts[3] = String(Number(parts[3]) + 3600)
    const edited = parts.join('.')
    assert.equal(
      (await post('/api/auth/verify-challenge', { did: alice.did, challenge: edited, signature: alice.sign(edited) }))
        .statusCode,
      401,
    )
  })

  it('rejects a challenge issued for another DID, even signed by the right key', async () => {
    const challenge = await bob.challenge(t.app)
    const res = await post('/api/auth/verify-challenge', {
      did: alice.did,
      challenge,
      signature: alice.sign(challenge),
    })
    assert.equal(res.statusCode, 401)
  })

  it('rejects a reused challenge with 401', async () => {
    const proof = await alice.proof(t.app)
    assert.equal((await post('/api/auth/verify-challenge', proof)).statusCode, 200)
    const again = await post('/api/auth/verify-challenge', proof)
    assert.equal(again.statusCode, 401)
    assert.match(again.json().message, /already used/i)
    // and through the other login route too
    assert.equal((await post('/api/auth/login', proof)).statusCode, 401)
  })

  it('lets a challenge be used exactly once under concurrent submissions', async () => {
    const proof = await alice.proof(t.app)
    const results = await Promise.all(Array.from({ length: 10 }, () => post('/api/auth/verify-challenge', proof)))
    const codes = results.map((r) => r.statusCode).sort()
    assert.deepEqual(codes, [200, ...Array(9).fill(401)])
  })

  it('logs in many clients at once, including one DID twice in the same batch', async () => {
    const clients = Array.from({ length: 8 }, () => new DidClient())
    const proofs = (await Promise.all(clients.flatMap((c) => [c.proof(t.app), c.proof(t.app)]))).flat()
    const results = await Promise.all(proofs.map((p) => post('/api/auth/verify-challenge', p)))
    assert.deepEqual(
      results.map((r) => r.statusCode),
      Array(16).fill(200),
    )
    assert.deepEqual(
      results.map((r) => r.json().user.did),
      proofs.map((p) => p.did),
    )
    for (const r of results) {
      const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(r.json().token) })
      assert.equal(me.json().user.did, r.json().user.did)
    }
  })

  it('rejects an expired challenge with 401', async () => {
    const proof = await alice.proof(t.app)
    clock.advance(301_000)
    const res = await post('/api/auth/verify-challenge', proof)
    assert.equal(res.statusCode, 401)
    assert.match(res.json().message, /expired/i)
  })

  it('rejects missing fields, wrong types and malformed DIDs with 400 naming the field', async () => {
    const proof = await alice.proof(t.app)
    for (const field of ['did', 'challenge', 'signature'] as const) {
      const body: Record<string, unknown> = { ...proof }
      delete body[field]
      const res = await post('/api/auth/verify-challenge', body)
      assert.equal(res.statusCode, 400, field)
      assert.match(res.json().message, new RegExp(field))
    }
    const wrongType = await post('/api/auth/challenge', { did: 12345678 })
    assert.equal(wrongType.statusCode, 400)
    assert.equal(wrongType.json().code, 'VALIDATION_FAILED')
    for (const did of ['not-a-did', 'did:key', 'did::abc', 'did:key:has space']) {
      const res = await post('/api/auth/challenge', { did })
      assert.equal(res.statusCode, 400, did)
      assert.ok(res.json().message)
    }
  })

  it('answers malformed JSON 400, wrong content type 415, oversized body 413', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/auth/challenge',
      headers: { 'content-type': 'application/json' },
      payload: '{"did":',
    })
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().success, false)
    const text = await t.app.inject({
      method: 'POST',
      url: '/api/auth/challenge',
      headers: { 'content-type': 'text/plain' },
      payload: 'did',
    })
    assert.equal(text.statusCode, 415)
    assert.ok(text.json().message)
    const huge = await t.app.inject({
      method: 'POST',
      url: '/api/auth/challenge',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ did: 'did:key:z' + 'a'.repeat(2 * 1024 * 1024) }),
    })
    assert.equal(huge.statusCode, 413)
    assert.ok(huge.json().message)
  })

  it('normalises compatible DID spellings before binding the challenge', async () => {
    const res = await post('/api/auth/challenge', { did: `DID:KEY:${alice.did.slice(8)}#key-1` })
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().did, alice.did)
    const challenge = res.json().challenge
    assert.equal(
      (await post('/api/auth/login', { did: alice.did, challenge, signature: alice.sign(challenge) })).statusCode,
      200,
    )
  })

  it('refuses a did:key whose key type cannot sign in', async () => {
    // X25519 did:key from the W3C vectors: a key-agreement key, not a signing key.
    const res = await post('/api/auth/challenge', { did: 'did:key:z6LSeu9HkTHSfLLeUs2nnzUSNedgDUevfNQgQjQC23ZCit6F' })
    const challenge = res.json().challenge
    const login = await post('/api/auth/login', {
      did: 'did:key:z6LSeu9HkTHSfLLeUs2nnzUSNedgDUevfNQgQjQC23ZCit6F',
      challenge,
      signature: alice.sign(challenge),
    })
    assert.equal(login.statusCode, 400)
    assert.match(login.json().message, /Ed25519/)
  })

  it('refuses an unknown DID of another method with 401 until it is registered', async () => {
    const challenge = await alice.challenge(t.app, 'did:example:nobody')
    const res = await post('/api/auth/login', {
      did: 'did:example:nobody',
      challenge,
      signature: alice.sign(challenge),
    })
    assert.equal(res.statusCode, 401)
    assert.match(res.json().message, /register/i)
  })
})

describe('auth: session tokens', () => {
  let t: TestApp
  const clock = new ManualClock()
  const alice = new DidClient()
  let token: string

  before(async () => {
    t = await createTestApp({ clock })
    token = await alice.login(t.app)
  })
  after(() => t.close())

  const me = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/auth/me', headers })

  it('issues an EdDSA JWT with iss, sub, iat, exp, jti that verifies with the published service key', async () => {
    const { jwtVerify, importJWK } = await import('jose')
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())
    assert.deepEqual(header, { alg: 'EdDSA', typ: 'JWT', kid: header.kid })
    const keys = await t.app.inject({
      method: 'GET',
      url: `/api/admin/keys?purpose=jwt`,
      headers: { 'x-admin-key': 'test-admin-key-0123456789' },
    })
    const published = keys.json().keys.find((k: { kid: string }) => k.kid === header.kid)
    const key = await importJWK({ kty: 'OKP', crv: 'Ed25519', x: published.public_key }, 'EdDSA')
    const { payload } = await jwtVerify(token, key, { currentDate: clock.now() })
    assert.equal(payload.iss, 'http://service.test')
    assert.equal(payload.sub, alice.did)
    assert.equal(payload.exp! - payload.iat!, 3600)
    assert.match(payload.jti!, /^[0-9a-f-]{36}$/)
  })

  it('needs a token on protected routes', async () => {
    const res = await me({})
    assert.equal(res.statusCode, 401)
    assert.equal(res.json().code, 'UNAUTHENTICATED')
    assert.equal((await me({ authorization: 'Basic abc' })).statusCode, 401)
    assert.equal((await me({ authorization: 'Bearer not.a.jwt' })).statusCode, 401)
  })

  it('rejects a tampered token', async () => {
    const [h, p, s] = token.split('.') as [string, string, string]
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString())
    payload.sub = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp'
    const tampered = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`
    assert.equal((await me(bearer(tampered))).statusCode, 401)
    const flipped = `${h}.${p}.${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`
    assert.equal((await me(bearer(flipped))).statusCode, 401)
  })

  it('rejects alg none', async () => {
    const [h, p] = token.split('.') as [string, string]
    const header = { ...JSON.parse(Buffer.from(h, 'base64url').toString()), alg: 'none' }
    const unsigned = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${p}.`
    assert.equal((await me(bearer(unsigned))).statusCode, 401)
  })

  it('rejects an HS256 token keyed with the service public key (algorithm confusion)', async () => {
    const [h, p] = token.split('.') as [string, string]
    const kid = JSON.parse(Buffer.from(h, 'base64url').toString()).kid
    const keys = await t.app.inject({
      method: 'GET',
      url: '/api/admin/keys?purpose=jwt',
      headers: { 'x-admin-key': 'test-admin-key-0123456789' },
    })
    const publicKey = Buffer.from(keys.json().keys[0].public_key, 'base64url')
    const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid })).toString('base64url')
    const mac = createHmac('sha256', publicKey).update(`${header}.${p}`).digest('base64url')
    assert.equal((await me(bearer(`${header}.${p}.${mac}`))).statusCode, 401)
  })

  it('rejects a token signed by a key that is not the service key', async () => {
    const seed = Buffer.alloc(32, 9)
    const priv = createPrivateKey({
      key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
      format: 'der',
      type: 'pkcs8',
    })
    void createPublicKey(priv)
    const [h, p] = token.split('.') as [string, string]
    const sig = sign(null, Buffer.from(`${h}.${p}`), priv).toString('base64url')
    assert.equal((await me(bearer(`${h}.${p}.${sig}`))).statusCode, 401)
  })

  it('rejects an expired token with 401', async () => {
    assert.equal((await me(bearer(token))).statusCode, 200)
    clock.advance(3601_000)
    const res = await me(bearer(token))
    assert.equal(res.statusCode, 401)
    assert.match(res.json().message, /expired/i)
  })

  it('rejects another DID in X-User-DID with 403', async () => {
    const fresh = await alice.login(t.app)
    assert.equal((await me({ ...bearer(fresh), 'x-user-did': alice.did })).statusCode, 200)
    const res = await me({ ...bearer(fresh), 'x-user-did': new DidClient().did })
    assert.equal(res.statusCode, 403)
    assert.equal(res.json().code, 'FORBIDDEN')
  })
})
