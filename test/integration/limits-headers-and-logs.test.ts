import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { accessOf } from '../../src/plugins/route-access.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { ADMIN_KEY, createTestApp, type TestApp } from '../helpers/test-app.js'

const SMALL = 64 * 1024
const LARGE = 1024 * 1024
const SCHEMA = {
  name: 'Pass',
  version: '1',
  attributes: [{ name: 'holder_name', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

/** A JSON body of about `bytes` bytes that is otherwise a plausible request. */
const padded = (body: Record<string, unknown>, bytes: number) => JSON.stringify({ ...body, padding: 'x'.repeat(bytes) })

describe('body limits per route', () => {
  let t: TestApp
  const issuer = new IssuerActor()

  before(async () => {
    t = await createTestApp({ env: { BODY_LIMIT_BYTES: String(LARGE), SMALL_BODY_LIMIT_BYTES: String(SMALL) } })
    await issuer.setUp(t.app, 'Limits Office')
  })
  after(() => t.close())

  it('gives every public and admin route the small limit, and credential-carrying routes the large one', () => {
    const limitOf = (method: string, url: string) =>
      t.app.routeTable.find((r) => r.method === method && r.url === url)?.bodyLimit
    for (const route of t.app.routeTable) {
      const access = accessOf(route.method, route.url)
      if ((access === 'public' || access === 'admin') && !route.url.startsWith('/api/docs')) {
        assert.equal(route.bodyLimit, SMALL, `${route.method} ${route.url}`)
      }
    }
    assert.equal(limitOf('POST', '/api/issuer/:did/issue'), LARGE)
    assert.equal(limitOf('POST', '/api/verifier/presentations'), LARGE)
    assert.equal(limitOf('POST', '/api/wallet/:did/credentials/import'), LARGE)
    // The VC API carries credentials and presentations too.
    assert.equal(limitOf('POST', '/vc-api/issuers/:issuer_id/:format/credentials/issue'), LARGE)
    assert.equal(limitOf('POST', '/vc-api/presentations/verify'), LARGE)
    assert.equal(limitOf('POST', '/api/issuer/:did/credentials/:credential_id/revoke'), SMALL)
    assert.equal(limitOf('POST', '/api/wallet/:did/consents'), SMALL)
  })

  it('refuses a 100 KiB body on the public challenge route with 413 and a message', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/challenge',
      headers: { 'content-type': 'application/json' },
      payload: padded({ did: issuer.did }, 100 * 1024),
    })
    assert.equal(res.statusCode, 413)
    assert.equal(res.json().code, 'PAYLOAD_TOO_LARGE')
    assert.ok(res.json().message)
    assert.equal(res.json().request_id, res.headers['x-request-id'])
  })

  it('lets the same 100 KiB through to validation on the issue route, and refuses 1.1 MiB there', async () => {
    const url = `/api/issuer/${issuer.did}/issue`
    const headers = { ...bearer(issuer.token), 'content-type': 'application/json' }
    // Under the large limit the body is parsed and judged by the schema (the padding is an unknown field).
    const parsed = await t.app.inject({
      method: 'POST',
      url,
      headers,
      payload: padded({ credential_type: 'Pass' }, 100 * 1024),
    })
    assert.equal(parsed.statusCode, 400, parsed.body)
    assert.equal(parsed.json().code, 'VALIDATION_FAILED')
    const tooBig = await t.app.inject({
      method: 'POST',
      url,
      headers,
      payload: padded({ credential_type: 'Pass' }, LARGE + 100 * 1024),
    })
    assert.equal(tooBig.statusCode, 413)
  })
})

describe('security headers, CORS and request ids', () => {
  let t: TestApp
  let token: string
  const user = new DidClient()

  before(async () => {
    t = await createTestApp({ env: { CORS_ORIGINS: 'https://wallet.example, https://verifier.example' } })
    token = await user.login(t.app)
  })
  after(() => t.close())

  it('sends a restrictive CSP on API responses, and no-store on authenticated ones only', async () => {
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) })
    assert.equal(me.statusCode, 200)
    assert.equal(me.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'")
    assert.equal(me.headers['cache-control'], 'no-store')
    assert.equal(me.headers['x-frame-options'], 'DENY')
    assert.equal(me.headers['referrer-policy'], 'no-referrer')
    // A public DID document may be cached by whoever resolves it.
    const did = await t.app.inject({ method: 'GET', url: `/api/did/${user.did}` })
    assert.equal(did.statusCode, 200)
    assert.notEqual(did.headers['cache-control'], 'no-store')
    // The docs UI runs scripts: it is not given the API policy.
    const docs = await t.app.inject({ method: 'GET', url: '/api/docs/' })
    assert.equal(docs.statusCode, 200)
    assert.equal(docs.headers['content-security-policy'], undefined)
    // No HSTS over plain http.
    assert.equal(me.headers['strict-transport-security'], undefined)
  })

  it('answers CORS for configured origins only, including the preflight', async () => {
    const allowed = await t.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { origin: 'https://wallet.example' },
    })
    assert.equal(allowed.headers['access-control-allow-origin'], 'https://wallet.example')
    assert.equal(allowed.headers.vary, 'Origin')
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/issuer',
      headers: {
        origin: 'https://verifier.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    })
    assert.equal(preflight.statusCode, 204)
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://verifier.example')
    assert.match(String(preflight.headers['access-control-allow-headers']), /authorization/)
    // A browser's keyed POST (docs/idempotency.md) is refused before it is sent unless the preflight allows the header.
    assert.match(String(preflight.headers['access-control-allow-headers']), /(^|, )idempotency-key(,|$)/)
    const other = await t.app.inject({ method: 'GET', url: '/api/health', headers: { origin: 'https://evil.example' } })
    assert.equal(other.headers['access-control-allow-origin'], undefined)
    const otherPreflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/issuer',
      headers: { origin: 'https://evil.example' },
    })
    assert.notEqual(otherPreflight.statusCode, 204)
    assert.equal(otherPreflight.headers['access-control-allow-origin'], undefined)
  })

  it('puts the request id in the error body and the x-request-id header, and makes one when none is given', async () => {
    const given = await t.app.inject({
      method: 'GET',
      url: '/api/issuer/nope',
      headers: { 'x-request-id': 'trace-42' },
    })
    assert.equal(given.statusCode, 401)
    assert.equal(given.json().request_id, 'trace-42')
    assert.equal(given.headers['x-request-id'], 'trace-42')
    const made = await t.app.inject({
      method: 'GET',
      url: '/api/issuer/nope',
      headers: { 'x-request-id': 'has spaces and ; semicolons' },
    })
    assert.notEqual(made.json().request_id, 'has spaces and ; semicolons')
    assert.match(made.json().request_id, /^[0-9a-f-]{36}$/)
    assert.equal(made.headers['x-request-id'], made.json().request_id)
  })
})

describe('HSTS behind an https base URL', () => {
  it('tells browsers to stay on https', async () => {
    const t = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://id.example' } })
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/health' })
      assert.match(String(res.headers['strict-transport-security']), /^max-age=31536000/)
    } finally {
      await t.close()
    }
  })
})

describe('rate limits on the sign-in routes', () => {
  it('answers 429 with retry-after once the per-IP budget is spent, and counts per route group', async () => {
    const t = await createTestApp({ env: { RATE_LIMIT_AUTH_PER_MINUTE: '5' } })
    try {
      const user = new DidClient()
      const statuses: number[] = []
      for (let i = 0; i < 7; i++) {
        const res = await t.app.inject({ method: 'POST', url: '/api/auth/challenge', payload: { did: user.did } })
        statuses.push(res.statusCode)
        if (res.statusCode === 429) {
          assert.ok(Number(res.headers['retry-after']) >= 1)
          assert.equal(res.json().code, 'RATE_LIMITED')
          assert.equal(res.headers['x-ratelimit-remaining'], '0')
        }
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429])
      // Other groups are not charged to the sign-in budget.
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode, 200)
    } finally {
      await t.close()
    }
  })
})

describe('log hygiene: no secret reaches the log, every line of a request carries its id', () => {
  const lines: string[] = []
  let t: TestApp
  const secrets: Record<string, string> = {}

  before(async () => {
    t = await createTestApp({ env: { LOG_LEVEL: 'trace' }, logSink: { write: (line) => void lines.push(line) } })
    const issuer = new IssuerActor()
    await issuer.setUp(t.app, 'Log Office')
    secrets.issuerToken = issuer.token
    const holder = new DidClient()
    const proof = await holder.proof(t.app)
    secrets.signature = proof.signature
    secrets.challenge = proof.challenge
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/verify-challenge',
      payload: proof,
      headers: { 'x-request-id': 'login-req-1' },
    })
    assert.equal(login.statusCode, 200)
    secrets.holderToken = login.json().token
    const schemaId = await issuer.schema(t.app, SCHEMA)
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Pass',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { holder_name: 'H' },
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const share = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/credentials/share`, secrets.holderToken, {
      credential_id: issued.json().credential.id,
      expires_in_seconds: 120,
    })
    assert.equal(share.statusCode, 201, share.body)
    secrets.shareToken = share.json().share.token
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/api/wallet/shared/${secrets.shareToken}` })).statusCode,
      200,
    )
    const generated = await t.app.inject({ method: 'POST', url: '/api/auth/generate-did', payload: {} })
    secrets.generatedPrivateKey = generated.json().private_key
    const seedOwner = new DidClient()
    secrets.encryptedSeed = Buffer.from('an encrypted wallet seed, opaque to the service').toString('base64')
    const wallet = await t.app.inject({
      method: 'POST',
      url: '/api/auth/create-wallet',
      payload: {
        ...(await seedOwner.proof(t.app)),
        wallet_name: 'Phone',
        encrypted_seed: secrets.encryptedSeed,
        encryption: { algorithm: 'AES-GCM', kdf: 'PBKDF2' },
      },
    })
    assert.equal(wallet.statusCode, 201, wallet.body)
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/admin/keys', headers: { 'x-admin-key': ADMIN_KEY } })).statusCode,
      200,
    )
    // Failures log too: a wrong token, a wrong admin key.
    await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(`${secrets.holderToken}x`) })
    await t.app.inject({ method: 'GET', url: '/api/admin/keys', headers: { 'x-admin-key': `${ADMIN_KEY}-wrong` } })
    secrets.adminKey = ADMIN_KEY
    secrets.masterKeyHex = Buffer.from(t.deps.masterKey).toString('hex')
    secrets.masterKeyBase64 = Buffer.from(t.deps.masterKey).toString('base64')
  })
  after(() => t.close())

  it('logged the traffic at all (the grep below would be vacuous otherwise)', () => {
    assert.ok(lines.length > 20, `only ${lines.length} log lines`)
    assert.ok(
      lines.some((l) => l.includes('/api/wallet/shared/[redacted]')),
      'the share-link request is logged, with its token redacted',
    )
  })

  it('contains none of the secrets used in the session', () => {
    const log = lines.join('')
    for (const [name, value] of Object.entries(secrets)) {
      assert.ok(value && value.length >= 16, `${name} was captured`)
      assert.ok(!log.includes(value), `${name} appears in the log`)
      // Tokens are JWTs: not even their signature part may appear.
      if (value.split('.').length === 3)
        assert.ok(!log.includes(value.split('.')[2]!), `${name}'s signature appears in the log`)
    }
  })

  it('tags every line of a request with its request id', () => {
    const ofLogin = lines.map((l) => JSON.parse(l)).filter((l) => l.reqId === 'login-req-1')
    assert.ok(ofLogin.some((l) => l.msg === 'incoming request'))
    assert.ok(ofLogin.some((l) => l.msg === 'request completed' && l.res?.statusCode === 200))
  })
})
