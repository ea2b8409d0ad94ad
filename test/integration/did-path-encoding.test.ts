/**
 * A DID in a URL path is percent-decoded exactly once (RFC 3986 §2.4), and did:web's own
 * encoding, the `%3A` before a port (did:web §3.2), is decoded once more only when the document
 * URL is built. A DID encoded twice is refused (400), never resolved as another DID.
 * Real: the app over HTTP (inject) on a fresh database. Faked: outgoing HTTP, a recorder that
 * serves one did:web document and lists every URL asked for.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, beforeEach, describe, it } from 'node:test'
import { base58btc } from 'multiformats/bases/base58'
import type { HttpGet } from '../../src/adapters/http-out/guarded-fetch.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

/** The DID: did:web on localhost, port 39250. */
const DID = 'did:web:localhost%3A39250'
const DOCUMENT_URL = 'http://localhost:39250/.well-known/did.json'

describe('DIDs in URL paths: one decode, did:web ports kept, double encoding refused', () => {
  let t: TestApp
  let token: string
  const holder = new DidClient()
  const fetched: string[] = []
  const httpGet: HttpGet = async (url) => {
    fetched.push(url)
    if (url !== DOCUMENT_URL) return { status: 404, headers: {}, body: new Uint8Array(), url }
    const document = {
      '@context': ['https://www.w3.org/ns/did/v1'],
      id: DID,
      verificationMethod: [
        {
          id: `${DID}#k`,
          type: 'Ed25519VerificationKey2018',
          controller: DID,
          publicKeyBase58: base58btc.baseEncode(holder.publicKey),
        },
      ],
      authentication: [`${DID}#k`],
    }
    return { status: 200, headers: {}, body: new TextEncoder().encode(JSON.stringify(document)), url }
  }

  before(async () => {
    // http:// for a port on localhost; the recorder stands in for the network.
    t = await createTestApp({ env: { DID_WEB_ALLOW_HTTP: 'true' }, httpGet })
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: await holder.proof(t.app, DID),
    })
    assert.equal(login.statusCode, 200, login.body)
    assert.equal(login.json().user.did, DID)
    token = login.json().token
  })
  after(() => t.close())
  beforeEach(() => {
    fetched.length = 0
  })

  const resolve = (segment: string) => t.app.inject({ method: 'GET', url: `/api/did/${segment}` })

  it("resolves the DID encoded once as a path segment (the issue's did%3Aweb%3Alocalhost%253A39250) at its port", async () => {
    // A fresh app: the login above cached the document, and this must show the URL fetched.
    const fresh = await createTestApp({ env: { DID_WEB_ALLOW_HTTP: 'true' }, httpGet })
    try {
      assert.equal(encodeURIComponent(DID), 'did%3Aweb%3Alocalhost%253A39250')
      const res = await fresh.app.inject({ method: 'GET', url: `/api/did/${encodeURIComponent(DID)}` })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().didDocument.id, DID)
      assert.deepEqual(fetched, [DOCUMENT_URL])
    } finally {
      await fresh.close()
    }
  })

  it('resolves the DID written as is in the path, its %3A being the port', async () => {
    const res = await resolve(DID)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().didDocument.id, DID)
    assert.ok(
      fetched.every((url) => url === DOCUMENT_URL),
      fetched.join(' '),
    )
  })

  it('refuses the DID encoded twice with 400, fetching nothing', async () => {
    for (const segment of [
      encodeURIComponent(encodeURIComponent(DID)),
      // Written as is, with its port's "%" encoded twice.
      'did:web:localhost%25253A39250',
      encodeURIComponent(encodeURIComponent('did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp')),
    ]) {
      const res = await resolve(segment)
      assert.equal(res.statusCode, 400, `${segment}: ${res.body}`)
      assert.match(res.json().message, /percent-encoded/, segment)
    }
    assert.deepEqual(fetched, [])
  })

  it('refuses percent-encoding did:web does not define: an encoded slash, a path escape', async () => {
    for (const did of [
      'did:web:localhost%2F39250',
      'did:web:localhost%3A39250:a%2Fb',
      'did:web:localhost%3A39250:%2E%2E',
    ]) {
      const res = await resolve(encodeURIComponent(did))
      assert.equal(res.statusCode, 400, `${did}: ${res.body}`)
    }
    assert.deepEqual(fetched, [])
  })

  it('resolves did:web:localhost:39250 (a path, no port) only when that DID is what was sent', async () => {
    const res = await resolve(encodeURIComponent('did:web:localhost:39250'))
    assert.equal(res.statusCode, 404, res.body)
    assert.deepEqual(fetched, ['http://localhost/39250/did.json'])
  })

  it('reads :did the same way on a route behind the token (ownership compares the same DID)', async () => {
    for (const segment of [encodeURIComponent(DID), DID]) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/wallet/${segment}/credentials`,
        headers: bearer(token),
      })
      assert.equal(res.statusCode, 200, `${segment}: ${res.body}`)
    }
    const twice = await t.app.inject({
      method: 'GET',
      url: `/api/wallet/${encodeURIComponent(encodeURIComponent(DID))}/credentials`,
      headers: bearer(token),
    })
    assert.equal(twice.statusCode, 400, twice.body)
    assert.match(twice.json().message, /percent-encoded/)
  })

  it('reads :issuer_did the same way', async () => {
    const challenge = (segment: string) =>
      t.app.inject({
        method: 'GET',
        url: `/api/wallet/issuer/${segment}/request/${randomUUID()}/challenge`,
        headers: bearer(token),
      })
    // The caller's own DID, so past ownership: the made-up request is simply not found.
    for (const segment of [encodeURIComponent(DID), DID]) {
      const res = await challenge(segment)
      assert.equal(res.statusCode, 404, `${segment}: ${res.body}`)
    }
    const twice = await challenge(encodeURIComponent(encodeURIComponent(DID)))
    assert.equal(twice.statusCode, 400, twice.body)
  })
})
