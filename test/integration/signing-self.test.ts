/**
 * An issuer whose login DID is its own did:web may sign as itself once that document lists the
 * service's keys under assertionMethod (DESIGN.md "Issuer identity"): refused (422, naming what to
 * publish) until it does, then credentials name the did:web itself and verify with the keys its
 * own document publishes. The issuer's web server is a recorder standing in for the network.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose'
import { base58btc } from 'multiformats/bases/base58'
import type { HttpGet } from '../../src/adapters/http-out/guarded-fetch.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import { callAs } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const DID = 'did:web:issuer.example'
const DOCUMENT_URL = 'http://issuer.example/.well-known/did.json'

describe('an issuer signing as its own did:web', () => {
  let t: TestApp
  let token: string
  const owner = new DidClient()
  const holder = new DidClient()
  let published: Json[] = []
  const document = () => ({
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: DID,
    verificationMethod: [
      {
        id: `${DID}#login`,
        type: 'Ed25519VerificationKey2018',
        controller: DID,
        publicKeyBase58: base58btc.baseEncode(owner.publicKey),
      },
      ...published,
    ],
    authentication: [`${DID}#login`],
    assertionMethod: published.map((m) => m.id),
  })
  const httpGet: HttpGet = async (url) =>
    url === DOCUMENT_URL
      ? { status: 200, headers: {}, body: new TextEncoder().encode(JSON.stringify(document())), url }
      : { status: 404, headers: {}, body: new Uint8Array(), url }

  before(async () => {
    t = await createTestApp({ env: { DID_WEB_ALLOW_HTTP: 'true' }, httpGet })
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: await owner.proof(t.app, DID) })
    assert.equal(login.statusCode, 200, login.body)
    token = login.json().token
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/issuer', headers: bearer(token), payload: { name: 'Self' } }))
        .statusCode,
      201,
    )
  })
  after(() => t.close())

  it('is refused until the document lists the keys, then signs as the did:web itself', async () => {
    const refused = await callAs(t.app, 'PUT', `/api/issuer/${DID}/signing`, token, { signing_did_method: 'self' })
    assert.equal(refused.statusCode, 422, refused.body)
    const publish: Json[] = refused.json().details.publish
    assert.deepEqual(
      publish.map((m) => m.id.split('#')[0]),
      [DID, DID, DID, DID],
    )
    // Publishing only some of them is not enough.
    published = publish.slice(0, 1)
    assert.equal(
      (await callAs(t.app, 'PUT', `/api/issuer/${DID}/signing`, token, { signing_did_method: 'self' })).statusCode,
      422,
    )
    published = publish
    const accepted = await callAs(t.app, 'PUT', `/api/issuer/${DID}/signing`, token, { signing_did_method: 'self' })
    assert.equal(accepted.statusCode, 200, accepted.body)
    assert.equal(accepted.json().signing_did, DID)

    const schema = await callAs(t.app, 'POST', `/api/issuer/${DID}/schemas`, token, {
      name: 'Staff',
      version: '1',
      attributes: [{ name: 'role', data_type: 'string', required: true }],
      anonymous_credentials: false,
    })
    assert.equal(schema.statusCode, 201, schema.body)
    const issued = await callAs(t.app, 'POST', `/api/issuer/${DID}/issue`, token, {
      credential_type: 'Staff',
      schema_id: schema.json().schema.id,
      subject_did: holder.did,
      attributes: { role: 'editor' },
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const jwt = issued.json().credential.jwt
    const kid = decodeProtectedHeader(jwt).kid
    const method = document().verificationMethod.find((m: Json) => m.id === kid)
    assert.ok(method, "signed with a key the issuer's own document publishes")
    const raw = base58btc.decode(method.publicKeyMultibase)
    const { payload } = await jwtVerify(
      jwt,
      await importJWK({ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw.subarray(2)).toString('base64url') }, 'EdDSA'),
      { issuer: DID },
    )
    assert.equal(payload.sub, holder.did)
  })
})
