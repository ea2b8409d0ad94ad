import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

const FIXTURES = new URL('../../../shared/fixtures/did-key/', import.meta.url)

/** Each fixture file maps DID -> vector with a didDocument, except x25519.json (didDocument -> DID -> doc). */
async function fixtureVectors(): Promise<Array<{ file: string; did: string; doc: Record<string, unknown> }>> {
  const out = []
  for (const file of (await readdir(FIXTURES)).filter((f) => f.endsWith('.json'))) {
    const data = JSON.parse(await readFile(new URL(file, FIXTURES), 'utf8'))
    const entries: Array<[string, Record<string, unknown>]> = data.didDocument
      ? Object.entries(data.didDocument)
      : Object.entries(data).map(([did, v]) => [did, (v as { didDocument: Record<string, unknown> }).didDocument])
    for (const [did, doc] of entries) if (doc) out.push({ file, did, doc })
  }
  return out
}

describe('GET /api/did/:did', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())

  it('resolves the W3C did:key vectors for Ed25519/X25519 to the expected documents', async () => {
    const vectors = (await fixtureVectors()).filter((v) => v.file === 'ed25519-x25519.json' || v.file === 'x25519.json')
    assert.ok(vectors.length >= 9)
    for (const v of vectors) {
      // Some vectors are the JsonWebKey2020 form, asked for with the publicKeyFormat option.
      const format = (v.doc.verificationMethod as Array<{ type: string }>)[0]!.type
      const res = await t.app.inject({ method: 'GET', url: `/api/did/${v.did}?publicKeyFormat=${format}` })
      assert.equal(res.statusCode, 200, v.did)
      assert.deepEqual(res.json().didDocument, v.doc, v.did)
      assert.equal(res.json().success, true)
      assert.equal(res.json().didResolutionMetadata.contentType, 'application/did+ld+json')
    }
  })

  it('resolves every vector of a key type the service supports, the rest get 400', async () => {
    let resolved = 0
    let refused = 0
    for (const v of await fixtureVectors()) {
      const format = (v.doc.verificationMethod as Array<{ type: string }> | undefined)?.[0]?.type ?? ''
      const res = await t.app.inject({ method: 'GET', url: `/api/did/${v.did}?publicKeyFormat=${format}` })
      if (res.statusCode === 200) {
        assert.deepEqual(res.json().didDocument, v.doc, v.did)
        resolved++
      } else {
        assert.equal(res.statusCode, 400, `${v.did}: ${res.body}`)
        assert.match(res.json().message, /unsupported/i)
        refused++
      }
    }
    assert.ok(resolved >= 29, `resolved ${resolved}`)
    assert.ok(refused <= 1, `refused ${refused}`)
  })

  it('serves the bare document for Accept: application/did+json', async () => {
    const did = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp'
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/did/${did}`,
      headers: { accept: 'application/did+json' },
    })
    assert.equal(res.statusCode, 200)
    assert.match(res.headers['content-type'] as string, /application\/did\+json/)
    assert.equal(res.json().id, did)
  })

  it('normalises compatible spellings: percent-encoding, fragment, method case', async () => {
    const did = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp'
    for (const spelling of [
      encodeURIComponent(did),
      `${did}%23z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp`,
      did.replace('did:key', 'DID:KEY'),
    ]) {
      const res = await t.app.inject({ method: 'GET', url: `/api/did/${spelling}` })
      assert.equal(res.statusCode, 200, spelling)
      assert.equal(res.json().didDocument.id, did)
    }
  })

  it('answers malformed DIDs and unsupported methods with 400, unknown ones with 404', async () => {
    for (const bad of [
      'not-a-did',
      'did:',
      'did:key:',
      'did:key:zzzz',
      'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooW',
    ]) {
      const res = await t.app.inject({ method: 'GET', url: `/api/did/${encodeURIComponent(bad)}` })
      assert.equal(res.statusCode, 400, `${bad}: ${res.body}`)
      assert.ok(res.json().message)
    }
    const unsupported = await t.app.inject({
      method: 'GET',
      url: '/api/did/did:ethr:0xb9c5714089478a327f09197987f16f9e5d936e8a',
    })
    assert.equal(unsupported.statusCode, 400)
    assert.match(unsupported.json().message, /not supported/)
    const tooLong = await t.app.inject({ method: 'GET', url: `/api/did/did:key:z${'a'.repeat(5000)}` })
    assert.ok(tooLong.statusCode === 400 || tooLong.statusCode === 414, String(tooLong.statusCode))
    assert.equal(tooLong.json().success, false)
    assert.ok(tooLong.json().message)
  })
})

describe('did:web resolution against a local server', () => {
  let server: http.Server
  let port: number
  let hits = 0
  const docFor = (did: string) => ({
    '@context': ['https://www.w3.org/ns/did/v1'],
    id: did,
    verificationMethod: [
      {
        id: `${did}#k1`,
        type: 'Ed25519VerificationKey2018',
        controller: did,
        publicKeyBase58: '4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS',
      },
    ],
    authentication: [`${did}#k1`],
  })
  before(async () => {
    server = http.createServer((req, res) => {
      hits++
      const host = `127.0.0.1%3A${port}`
      const routes: Record<string, unknown> = {
        '/.well-known/did.json': docFor(`did:web:${host}`),
        '/users/alice/did.json': docFor(`did:web:${host}:users:alice`),
        '/wrong/did.json': docFor('did:web:elsewhere.example'),
      }
      if (req.url === '/deep/did.json') {
        // A document nested 3,000 levels deep, written as text (no recursive serializer involved).
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(`{"id":"did:web:${host}:deep","service":${'['.repeat(3000)}${']'.repeat(3000)}}`)
        return
      }
      const body = routes[req.url ?? '']
      if (!body) {
        res.writeHead(404).end()
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('resolves with the private-address guard off (local development)', async () => {
    const t = await createTestApp({ env: { DID_WEB_ALLOW_HTTP: 'true', OUTBOUND_ALLOW_PRIVATE: 'true' } })
    try {
      const did = `did:web:127.0.0.1%3A${port}`
      const res = await t.app.inject({ method: 'GET', url: `/api/did/${did}` })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().didDocument.id, did)
      const path = await t.app.inject({ method: 'GET', url: `/api/did/${did}:users:alice` })
      assert.equal(path.statusCode, 200, path.body)
      assert.equal(path.json().didDocument.id, `${did}:users:alice`)
      const missing = await t.app.inject({ method: 'GET', url: `/api/did/${did}:users:nobody` })
      assert.equal(missing.statusCode, 404)
      const wrongId = await t.app.inject({ method: 'GET', url: `/api/did/${did}:wrong` })
      assert.ok(wrongId.statusCode >= 400 && wrongId.statusCode < 500, wrongId.body)
      assert.ok(wrongId.json().message)
      // A document nested past the document depth is refused, not served back or walked.
      const deep = await t.app.inject({ method: 'GET', url: `/api/did/${did}:deep` })
      assert.equal(deep.statusCode, 422, deep.body)
      assert.match(deep.json().message, /nested deeper than 64 levels/)
    } finally {
      await t.close()
    }
  })

  it('refuses a loopback host with the guard on, without contacting it', async () => {
    const t = await createTestApp({ env: { DID_WEB_ALLOW_HTTP: 'true', OUTBOUND_ALLOW_PRIVATE: 'false' } })
    try {
      const before = hits
      const res = await t.app.inject({ method: 'GET', url: `/api/did/did:web:127.0.0.1%3A${port}` })
      assert.equal(res.statusCode, 400, res.body)
      assert.match(res.json().message, /private|loopback|refused/i)
      assert.equal(hits, before)
    } finally {
      await t.close()
    }
  })

  it('logs in a did:web holder with a key from its document', async () => {
    const { DidClient } = await import('../helpers/did-client.js')
    const holder = new DidClient()
    const { base58btc } = await import('multiformats/bases/base58')
    const did = `did:web:127.0.0.1%3A${port}:holders:h1`
    const local = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          '@context': ['https://www.w3.org/ns/did/v1'],
          id: did,
          verificationMethod: [
            {
              id: `${did}#k`,
              type: 'Ed25519VerificationKey2018',
              controller: did,
              publicKeyBase58: base58btc.baseEncode(holder.publicKey),
            },
          ],
          authentication: [`${did}#k`],
        }),
      )
    })
    // Swap the document server for one on the same port's host: a fresh server on another port
    // would change the DID, so route this DID's path through the shared server instead.
    server.removeAllListeners('request')
    server.on('request', local.listeners('request')[0] as http.RequestListener)
    const t = await createTestApp({ env: { DID_WEB_ALLOW_HTTP: 'true', OUTBOUND_ALLOW_PRIVATE: 'true' } })
    try {
      const proof = await holder.proof(t.app, did)
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: proof })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().user.did, did)
      const other = new DidClient()
      const challenge = await other.challenge(t.app, did)
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/auth/login',
            payload: { did, challenge, signature: other.sign(challenge) },
          })
        ).statusCode,
        401,
      )
    } finally {
      await t.close()
    }
  })
})

describe('DID resolution rate limit', () => {
  it('has its own per-IP budget, separate from sign-in', async () => {
    const t = await createTestApp({ env: { RATE_LIMIT_RESOLVE_PER_MINUTE: '2', RATE_LIMIT_AUTH_PER_MINUTE: '2' } })
    try {
      const did = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp'
      const codes = []
      for (let i = 0; i < 3; i++) codes.push((await t.app.inject({ method: 'GET', url: `/api/did/${did}` })).statusCode)
      assert.deepEqual(codes, [200, 200, 429])
      const limited = await t.app.inject({ method: 'GET', url: `/api/did/${did}` })
      assert.match(limited.json().message, /DID resolutions/)
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/api/auth/challenge', payload: { did } })).statusCode,
        200,
      )
    } finally {
      await t.close()
    }
  })
})
