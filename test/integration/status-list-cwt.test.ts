import assert from 'node:assert/strict'
import { verify, X509Certificate } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { StatusList } from '@owf/token-status-list'
import { Decoder, encode } from 'cbor-x'
import { DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Identity',
  description: 'A person',
  version: '1.0',
  attributes: [{ name: 'given_name', data_type: 'string', required: true }],
  anonymous_credentials: false,
}
const CWT = 'application/statuslist+cwt'
const cbor = new Decoder({ mapsAsObjects: false })
const decode = (part: string): Json => JSON.parse(Buffer.from(part, 'base64url').toString())

/**
 * The verifier's side of draft-ietf-oauth-status-list §5.2 with cbor-x and node:crypto only: the
 * COSE_Sign1 (RFC 9052 §4.2, tag 18 = 0xd2) verified over its Sig_structure (§4.4) with the key
 * of the x5chain's DS certificate; answers the claims and the chain.
 */
function readCwt(bytes: Uint8Array) {
  assert.equal(bytes[0], 0xd2, 'COSE_Sign1 tag 18')
  const [protectedBytes, unprotected, payload, signature] = cbor.decode(bytes.subarray(1)) as [
    Uint8Array,
    Map<number, unknown>,
    Uint8Array,
    Uint8Array,
  ]
  const headers = cbor.decode(protectedBytes) as Map<number, unknown>
  assert.equal(headers.get(1), -7)
  assert.equal(headers.get(16), CWT)
  const x5chain = (headers.get(33) ?? unprotected.get(33)) as Uint8Array | Uint8Array[]
  const leaf = Array.isArray(x5chain) ? x5chain[0]! : x5chain
  const sigStructure = encode(['Signature1', Buffer.from(protectedBytes), Buffer.alloc(0), Buffer.from(payload)])
  const valid = verify(
    'sha256',
    sigStructure,
    { key: new X509Certificate(leaf).publicKey, dsaEncoding: 'ieee-p1363' },
    signature,
  )
  assert.ok(valid, 'COSE_Sign1 signature by the DS certificate')
  return { claims: cbor.decode(payload) as Map<number, unknown>, leaf: new Uint8Array(leaf) }
}

describe('Token Status List in CWT form over HTTP (draft-ietf-oauth-status-list §5.2, §8.2)', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  let idx: number
  let uri: string
  let path: string

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Registry')
    const schemaId = await issuer.schema(t.app, SCHEMA)
    await holder.login(t.app)
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Identity',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { given_name: 'Erika' },
      format: 'dc+sd-jwt',
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const credential = issued.json().credential
    ;({ idx, uri } = decode(credential.jwt.split('~')[0].split('.')[1]).status.status_list)
    path = new URL(uri).pathname
    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`,
      issuer.token,
      { reason: 'test' },
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
  })
  after(() => t.close())

  it('answers the CWT form for Accept: application/statuslist+cwt, with the revoked bit set', async () => {
    const res = await t.app.inject({ method: 'GET', url: path, headers: { accept: CWT } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.headers['content-type'], CWT)
    assert.equal(res.headers['cache-control'], 'public, max-age=30')
    assert.match(String(res.headers.etag), /^".+-cwt"$/)
    assert.match(String(res.headers.vary), /accept/i)
    const { claims, leaf } = readCwt(res.rawPayload)
    // Signed by this issuer's Document Signer, as its public certificate listing shows it.
    const listed = await t.app.inject({ method: 'GET', url: `/api/issuer/${issuer.did}/certificates` })
    const ds = listed.json().certificates.find((c: { use: string }) => c.use === 'document_signer')
    assert.deepEqual(Buffer.from(leaf), Buffer.from(new X509Certificate(ds.pem).raw))
    assert.equal(claims.get(2), uri)
    const iat = claims.get(6) as number
    assert.ok(Math.abs(iat - Date.now() / 1000) < 60)
    assert.equal(claims.get(4), iat + 3600)
    assert.equal(claims.get(65534), 30)
    const statusList = claims.get(65533) as Map<string, unknown>
    const list = StatusList.decompressStatusListFromBytes(statusList.get('lst') as Uint8Array, 1)
    assert.equal(list.getStatus(idx), 1, 'revoked')
    assert.equal(list.getStatus(idx + 1), 0, 'the next index is not')
  })

  it('answers the JWT form as before for other Accepts, and when the JWT form ranks higher', async () => {
    for (const accept of [undefined, '*/*', 'application/statuslist+jwt', `${CWT};q=0.5, application/statuslist+jwt`]) {
      const res = await t.app.inject({ method: 'GET', url: path, headers: accept ? { accept } : {} })
      assert.equal(res.statusCode, 200, res.body)
      assert.match(String(res.headers['content-type']), /^application\/statuslist\+jwt/, String(accept))
      assert.equal(res.body.split('.').length, 3)
    }
    const cwtFirst = await t.app.inject({
      method: 'GET',
      url: path,
      headers: { accept: `application/statuslist+jwt;q=0.5, ${CWT}` },
    })
    assert.equal(cwtFirst.headers['content-type'], CWT)
  })

  it('answers 404 in CWT form for a list that does not exist', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/status-lists/no-such-list/token',
      headers: { accept: CWT },
    })
    assert.equal(res.statusCode, 404, res.body)
  })
})
