import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { base58btc } from 'multiformats/bases/base58'
import { bearer, DidClient } from '../helpers/did-client.js'
import { buildApp } from '../../src/app.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
)

function multipart(field: string, filename: string, contentType: string, bytes: Buffer) {
  const boundary = '----test' + Math.random().toString(16).slice(2)
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

describe('auth: register, generate-did, profile, avatar', () => {
  let t: TestApp
  const alice = new DidClient()
  let token: string

  before(async () => {
    t = await createTestApp({ env: { AVATAR_MAX_BYTES: '4096' } })
    token = await alice.login(t.app)
  })
  after(() => t.close())
  const post = (url: string, payload: unknown, headers = {}) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers })

  it('registers a DID of another method with a proof of key possession, then logs it in', async () => {
    const key = new DidClient()
    const did = 'did:example:registered-holder'
    const challenge = await key.challenge(t.app, did)
    const publicKey = base58btc.encode(Uint8Array.from([0xed, 0x01, ...key.publicKey]))
    const res = await post('/api/auth/register', {
      did,
      public_key: publicKey,
      challenge,
      signature: key.sign(challenge),
      name: 'Reg',
      email: 'reg@example.org',
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().user.did, did)
    assert.equal(res.json().user.name, 'Reg')
    assert.ok(res.json().token)
    // Its DID document is now served.
    const doc = await t.app.inject({ method: 'GET', url: `/api/did/${did}` })
    assert.equal(doc.statusCode, 200)
    assert.equal(doc.json().didDocument.id, did)
    assert.ok(JSON.stringify(doc.json().didDocument).includes(publicKey))
    // Login with the registered key works; registering again conflicts.
    assert.equal((await post('/api/auth/login', await key.proof(t.app, did))).statusCode, 200)
    const again = await key.proof(t.app, did)
    assert.equal((await post('/api/auth/register', { ...again, public_key: publicKey })).statusCode, 409)
  })

  it('refuses registration with a signature from another key (401), a mismatched did:key (400), did:web (400)', async () => {
    const key = new DidClient()
    const other = new DidClient()
    const did = 'did:example:someone'
    const challenge = await key.challenge(t.app, did)
    const publicKey = Buffer.from(key.publicKey).toString('base64')
    assert.equal(
      (await post('/api/auth/register', { did, public_key: publicKey, challenge, signature: other.sign(challenge) }))
        .statusCode,
      401,
    )
    const c2 = await key.challenge(t.app, other.did)
    assert.equal(
      (
        await post('/api/auth/register', {
          did: other.did,
          public_key: publicKey,
          challenge: c2,
          signature: key.sign(c2),
        })
      ).statusCode,
      400,
    )
    const c3 = await key.challenge(t.app, 'did:web:example.com')
    assert.equal(
      (
        await post('/api/auth/register', {
          did: 'did:web:example.com',
          public_key: publicKey,
          challenge: c3,
          signature: key.sign(c3),
        })
      ).statusCode,
      400,
    )
    assert.equal(
      (
        await post('/api/auth/register', {
          did,
          public_key: 'not a key at all',
          challenge,
          signature: key.sign(challenge),
        })
      ).statusCode,
      400,
    )
  })

  it('refuses to register DIDs of methods that carry or resolve their own keys (no impersonation)', async () => {
    const attacker = new DidClient()
    const victimJwk = Buffer.from(
      JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(new DidClient().publicKey).toString('base64url') }),
    ).toString('base64url')
    for (const did of [
      `did:jwk:${victimJwk}`,
      'did:ethr:0xb9c5714089478a327f09197987f16f9e5d936e8a',
      'did:peer:0z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
    ]) {
      const challenge = await attacker.challenge(t.app, did)
      const res = await post('/api/auth/register', {
        did,
        public_key: Buffer.from(attacker.publicKey).toString('base64'),
        challenge,
        signature: attacker.sign(challenge),
      })
      assert.equal(res.statusCode, 400, did)
      assert.match(res.json().message, /cannot be registered/)
      const resolved = await t.app.inject({ method: 'GET', url: `/api/did/${did}` })
      if (!did.startsWith('did:jwk:')) assert.equal(resolved.statusCode, 400, did)
      // did:jwk resolves from the DID itself (did-jwk spec §2.3): to the victim's key, never the attacker's.
      else
        assert.equal(
          resolved.json().didDocument.verificationMethod[0].publicKeyJwk.x,
          JSON.parse(Buffer.from(victimJwk, 'base64url').toString()).x,
        )
    }
  })

  it('generate-did: fresh pair, from a private key (W3C vector), from a public key', async () => {
    const fresh = await post('/api/auth/generate-did', {})
    assert.equal(fresh.statusCode, 200)
    assert.match(fresh.json().did, /^did:key:z6Mk/)
    assert.ok(fresh.json().private_key)
    assert.equal(fresh.json().did_document.id, fresh.json().did)

    const vectors = JSON.parse(
      await readFile(new URL('../../../shared/fixtures/did-key/ed25519-x25519.json', import.meta.url), 'utf8'),
    )
    const [expectedDid, vector] = Object.entries(vectors)[0] as [string, { seed: string }]
    const fromSeed = await post('/api/auth/generate-did', { private_key: vector.seed })
    assert.equal(fromSeed.statusCode, 200)
    assert.equal(fromSeed.json().did, expectedDid)
    assert.equal(fromSeed.json().private_key, undefined)

    const fromPublic = await post('/api/auth/generate-did', { public_key: expectedDid.slice(8) })
    assert.equal(fromPublic.json().did, expectedDid)

    assert.equal((await post('/api/auth/generate-did', { private_key: 'abcd' })).statusCode, 400)
    assert.equal(
      (await post('/api/auth/generate-did', { private_key: vector.seed, public_key: expectedDid.slice(8) })).statusCode,
      400,
    )
  })

  it('profile: read, update, validate', async () => {
    const get = await t.app.inject({ method: 'GET', url: '/api/auth/profile', headers: bearer(token) })
    assert.equal(get.statusCode, 200)
    assert.equal(get.json().profile.did, alice.did)
    assert.equal(get.json().profile.wallets, 0)

    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/auth/profile',
      headers: bearer(token),
      payload: { name: 'Alice', email: 'alice@example.org', bio: 'hi' },
    })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().profile.name, 'Alice')
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) })
    assert.deepEqual(
      { name: me.json().user.name, email: me.json().user.email },
      { name: 'Alice', email: 'alice@example.org' },
    )

    for (const payload of [{}, { email: 'not-an-email' }, { name: 42 }, { name: 'x'.repeat(201) }]) {
      const res = await t.app.inject({ method: 'PUT', url: '/api/auth/profile', headers: bearer(token), payload })
      assert.equal(res.statusCode, 400, JSON.stringify(payload))
      assert.ok(res.json().message)
    }
    assert.equal(
      (await t.app.inject({ method: 'PUT', url: '/api/auth/profile', payload: { name: 'x' } })).statusCode,
      401,
    )
  })

  it('avatar: stores an image in the content store, refuses non-images, oversized files and non-multipart', async () => {
    const upload = multipart('avatar', 'a.png', 'image/png', PNG)
    const res = await post('/api/auth/avatar', upload.payload, { ...bearer(token), ...upload.headers })
    assert.equal(res.statusCode, 201, res.body)
    const { cid, content_type, size } = res.json().avatar
    assert.equal(content_type, 'image/png')
    assert.equal(size, PNG.length)
    const fetched = await t.app.inject({ method: 'GET', url: `/api/ipfs/${cid}` })
    assert.equal(fetched.statusCode, 200)
    assert.deepEqual(fetched.rawPayload, PNG)
    const profile = await t.app.inject({ method: 'GET', url: '/api/auth/profile', headers: bearer(token) })
    assert.equal(profile.json().profile.avatar_cid, cid)

    const text = multipart('avatar', 'a.png', 'image/png', Buffer.from('definitely not an image'))
    assert.equal((await post('/api/auth/avatar', text.payload, { ...bearer(token), ...text.headers })).statusCode, 400)
    const big = multipart('avatar', 'big.png', 'image/png', Buffer.concat([PNG, Buffer.alloc(8192)]))
    const tooBig = await post('/api/auth/avatar', big.payload, { ...bearer(token), ...big.headers })
    assert.equal(tooBig.statusCode, 413)
    assert.ok(tooBig.json().message)
    assert.equal((await post('/api/auth/avatar', { avatar: 'x' }, bearer(token))).statusCode, 415)
    assert.equal((await post('/api/auth/avatar', upload.payload, upload.headers)).statusCode, 401)
  })
})

describe('auth: wallets and the encrypted seed', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())
  const post = (url: string, payload: unknown, headers = {}) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers })
  const seed = Buffer.alloc(64, 3).toString('base64')

  it('create-wallet signs in, binds the wallet and can store a seed; login-wallet lists wallets', async () => {
    const holder = new DidClient()
    const proof = await holder.proof(t.app)
    const res = await post('/api/auth/create-wallet', {
      ...proof,
      wallet_name: 'Phone',
      wallet_type: 'mobile',
      encrypted_seed: seed,
      encryption: { algorithm: 'AES-GCM', kdf: 'PBKDF2' },
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().wallet.wallet_name, 'Phone')
    assert.equal(res.json().user.did, holder.did)
    assert.ok(res.json().token)
    // the proof was spent
    assert.equal((await post('/api/auth/create-wallet', proof)).statusCode, 401)

    const login = await post('/api/auth/login-wallet', await holder.proof(t.app))
    assert.equal(login.statusCode, 200)
    assert.equal(login.json().wallets.length, 1)
    assert.ok(login.json().wallets[0].last_login_at)
    const other = await post('/api/auth/login-wallet', {
      ...(await holder.proof(t.app)),
      wallet_id: 'wallet-of-someone-else',
    })
    assert.equal(other.statusCode, 404)

    const got = await post(
      '/api/auth/wallet/encrypted-seed/get',
      await holder.proof(t.app, holder.did, 'encrypted-seed'),
    )
    assert.equal(got.statusCode, 200)
    assert.equal(got.json().encrypted_seed, seed)
    assert.equal(got.json().encryption.algorithm, 'AES-GCM')
  })

  it('login-wallet for a DID without a wallet is 404; a bad signature is 401', async () => {
    const holder = new DidClient()
    assert.equal((await post('/api/auth/login-wallet', await holder.proof(t.app))).statusCode, 404)
    const challenge = await holder.challenge(t.app)
    assert.equal(
      (await post('/api/auth/login-wallet', { did: holder.did, challenge, signature: new DidClient().sign(challenge) }))
        .statusCode,
      401,
    )
  })

  it('encrypted seed: store, update with versions, conflict, fetch only with a fresh proof', async () => {
    const holder = new DidClient()
    const token = await holder.login(t.app)
    const first = await post(
      '/api/auth/wallet/encrypted-seed',
      { encrypted_seed: seed, encryption: { algorithm: 'AES-GCM' } },
      bearer(token),
    )
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(first.json().version, 1)
    assert.equal(first.json().encrypted_seed, undefined)
    const second = await post(
      '/api/auth/wallet/encrypted-seed',
      { encrypted_seed: seed.replace('A', 'B'), encryption: { algorithm: 'AES-GCM' }, expected_version: 1 },
      bearer(token),
    )
    assert.equal(second.statusCode, 200)
    assert.equal(second.json().version, 2)
    const stale = await post(
      '/api/auth/wallet/encrypted-seed',
      { encrypted_seed: seed, encryption: { algorithm: 'AES-GCM' }, expected_version: 1 },
      bearer(token),
    )
    assert.equal(stale.statusCode, 409)
    // A stored seed is never replaced blindly (a stolen token alone cannot swap the backup).
    const blind = await post(
      '/api/auth/wallet/encrypted-seed',
      { encrypted_seed: seed, encryption: { algorithm: 'AES-GCM' } },
      bearer(token),
    )
    assert.equal(blind.statusCode, 409)
    assert.match(blind.json().message, /expected_version/)
    assert.equal(
      (
        await post(
          '/api/auth/wallet/encrypted-seed',
          { encrypted_seed: '***not base64***', encryption: { algorithm: 'x' } },
          bearer(token),
        )
      ).statusCode,
      400,
    )
    assert.equal(
      (await post('/api/auth/wallet/encrypted-seed', { encrypted_seed: seed }, bearer(token))).statusCode,
      400,
    )
    assert.equal(
      (await post('/api/auth/wallet/encrypted-seed', { encrypted_seed: seed, encryption: { algorithm: 'x' } }))
        .statusCode,
      401,
    )

    // A login proof cannot fetch the seed: the challenge must be asked for that purpose.
    assert.equal((await post('/api/auth/wallet/encrypted-seed/get', await holder.proof(t.app))).statusCode, 401)
    const proof = await holder.proof(t.app, holder.did, 'encrypted-seed')
    assert.equal((await post('/api/auth/login', proof)).statusCode, 401)
    const got = await post('/api/auth/wallet/encrypted-seed/get', proof)
    assert.equal(got.statusCode, 200)
    assert.equal(got.json().version, 2)
    assert.equal((await post('/api/auth/wallet/encrypted-seed/get', proof)).statusCode, 401)
    const wrongKey = await holder.challenge(t.app, holder.did, 'encrypted-seed')
    assert.equal(
      (
        await post('/api/auth/wallet/encrypted-seed/get', {
          did: holder.did,
          challenge: wrongKey,
          signature: new DidClient().sign(wrongKey),
        })
      ).statusCode,
      401,
    )
    const stranger = new DidClient()
    assert.equal(
      (await post('/api/auth/wallet/encrypted-seed/get', await stranger.proof(t.app, stranger.did, 'encrypted-seed')))
        .statusCode,
      404,
    )
  })
})

describe('auth: rate limiting', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_AUTH_PER_MINUTE: '3' } })
  })
  after(() => t.close())

  it('answers 429 with Retry-After past the per-minute budget, and leaves other routes alone', async () => {
    const did = new DidClient().did
    const codes: number[] = []
    for (let i = 0; i < 5; i++)
      codes.push((await t.app.inject({ method: 'POST', url: '/api/auth/challenge', payload: { did } })).statusCode)
    assert.deepEqual(codes, [200, 200, 200, 429, 429])
    const limited = await t.app.inject({ method: 'POST', url: '/api/auth/challenge', payload: { did } })
    assert.ok(Number(limited.headers['retry-after']) >= 1)
    assert.equal(limited.json().code, 'RATE_LIMITED')
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode, 200)
  })
})

describe('auth: rate limit under concurrency', () => {
  it('admits exactly the limit when requests arrive while counts are being flushed', async () => {
    const t = await createTestApp({ env: { RATE_LIMIT_AUTH_PER_MINUTE: '5' }, clock: new ManualClock() })
    try {
      const did = new DidClient().did
      const codes: number[] = []
      // Waves spread over several flush intervals (250 ms), so some hits are sent while others
      // are still in flight to the database.
      for (let wave = 0; wave < 4; wave++) {
        const results = await Promise.all(
          Array.from({ length: 5 }, () =>
            t.app.inject({ method: 'POST', url: '/api/auth/challenge', payload: { did } }),
          ),
        )
        codes.push(...results.map((r) => r.statusCode))
        await new Promise((resolve) => setTimeout(resolve, 120))
      }
      assert.equal(codes.filter((c) => c === 200).length, 5)
      assert.equal(codes.filter((c) => c === 429).length, 15)
    } finally {
      await t.close()
    }
  })
})

describe('auth: rate limit shared by instances on one database', () => {
  it('counts hits made on another instance once they are flushed', async () => {
    // A fixed clock keeps both instances in one rate-limit window (no minute boundary mid-test).
    const first = await createTestApp({ env: { RATE_LIMIT_AUTH_PER_MINUTE: '4' }, clock: new ManualClock() })
    // A second instance of the service on the same database (what a load balancer would see).
    const second = await buildApp(first.config, {
      ...first.deps,
      database: { ...first.deps.database, close: async () => undefined },
    })
    await second.ready()
    try {
      const did = new DidClient().did
      const hit = (app: typeof second) =>
        app.inject({ method: 'POST', url: '/api/auth/challenge', payload: { did } }).then((r) => r.statusCode)
      assert.deepEqual([await hit(first.app), await hit(first.app), await hit(first.app)], [200, 200, 200])
      const flushed = () => new Promise((resolve) => setTimeout(resolve, 1000)) // both flush every 250 ms
      await flushed()
      assert.equal(await hit(second), 200)
      await flushed()
      assert.equal(await hit(second), 429)
      // The first instance learns of the other's hits when it next flushes this bucket: it may
      // admit what it admits within one flush interval (the documented bound), then refuses.
      await hit(first.app)
      await flushed()
      assert.equal(await hit(first.app), 429)
    } finally {
      await second.close()
      await first.close()
    }
  })

  it('admits at most the limit plus one share per other instance to a client bursting on both', async () => {
    // share = a tenth of the limit: 2 of 20. Before any timer flush, each instance may admit only
    // its share unsent; past it a request waits for the shared total.
    const first = await createTestApp({ env: { RATE_LIMIT_AUTH_PER_MINUTE: '20' }, clock: new ManualClock() })
    const second = await buildApp(first.config, {
      ...first.deps,
      database: { ...first.deps.database, close: async () => undefined },
    })
    await second.ready()
    try {
      const did = new DidClient().did
      const burst = (app: typeof second) =>
        Array.from({ length: 30 }, () =>
          app.inject({ method: 'POST', url: '/api/auth/challenge', payload: { did } }).then((r) => r.statusCode),
        )
      const codes = await Promise.all([...burst(first.app), ...burst(second)])
      const admitted = codes.filter((c) => c === 200).length
      assert.ok(admitted >= 20, `the limit is reachable: ${admitted}`)
      assert.ok(admitted <= 22, `at most limit + (instances - 1) x share: ${admitted}`)
      assert.equal(codes.filter((c) => c === 429).length, 60 - admitted)
    } finally {
      await second.close()
      await first.close()
    }
  })
})
