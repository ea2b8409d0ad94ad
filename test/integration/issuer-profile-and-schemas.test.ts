import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { canonicalize } from '../../src/crypto/jcs.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

const SCHEMA = {
  name: 'University Degree',
  description: 'A degree',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', description: 'Given name', required: true },
    { name: 'birth_date', data_type: 'date', required: true },
    { name: 'gpa', data_type: 'number' },
  ],
  evidence_allowed: true,
  allowed_evidence: ['transcript'],
}

describe('issuer profile', () => {
  let t: TestApp
  const issuer = new DidClient()
  const other = new DidClient()
  let token: string
  let otherToken: string
  before(async () => {
    t = await createTestApp()
    token = await issuer.login(t.app)
    otherToken = await other.login(t.app)
  })
  after(() => t.close())
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, tok?: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: tok ? bearer(tok) : {},
      ...(payload === undefined ? {} : { payload: payload as object }),
    })

  it('is created once for the authenticated DID', async () => {
    assert.equal((await call('POST', '/api/issuer', undefined, { name: 'Uni' })).statusCode, 401)
    assert.equal((await call('GET', `/api/issuer/${issuer.did}`, token)).statusCode, 404)
    const res = await call('POST', '/api/issuer', token, {
      name: 'Uni',
      website: 'https://uni.example',
      email: 'registrar@uni.example',
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().issuer.did, issuer.did)
    assert.equal(res.json().issuer.name, 'Uni')
    assert.equal((await call('POST', '/api/issuer', token, { name: 'Again' })).statusCode, 409)
    assert.equal((await call('POST', '/api/issuer', otherToken, { did: issuer.did, name: 'Impostor' })).statusCode, 403)
    for (const bad of [
      {},
      { name: '' },
      { name: 'x', website: 'ftp://x' },
      { name: 'x', email: 'nope' },
      { name: 5 },
    ]) {
      const r = await call('POST', '/api/issuer', otherToken, bad)
      assert.equal(r.statusCode, 400, JSON.stringify(bad))
      assert.ok(r.json().message)
    }
  })

  it("publishes the custodial keys in the signing did:web document, not the login DID's; rotation keeps the old one listed", async () => {
    // The login did:key's document is the did:key method's alone.
    const own = (await t.app.inject({ method: 'GET', url: `/api/did/${issuer.did}` })).json()
    assert.deepEqual(own.didDocumentMetadata, {})
    assert.ok(own.didDocument.verificationMethod.every((m: { id: string }) => m.id.startsWith(`${issuer.did}#`)))
    const signingDid = (await call('GET', `/api/issuer/${issuer.did}/signing`, token)).json().signing_did
    const doc = (await t.app.inject({ method: 'GET', url: `/api/did/${signingDid}` })).json().didDocument
    // One Ed25519 key (JWT-VC), one P-256 key (ES256), Dock's BBS key and the IETF BBS key of
    // bbs-2023 (both BLS12-381 G2; Dock's names its signature params), all assertion methods.
    assert.equal(doc.verificationMethod.length, 4)
    const ed = doc.verificationMethod.find((m: { publicKeyMultibase?: string }) =>
      m.publicKeyMultibase?.startsWith('z6Mk'),
    )
    const bls = doc.verificationMethod.filter((m: { publicKeyMultibase?: string }) =>
      m.publicKeyMultibase?.startsWith('zUC7'),
    )
    const bbs = bls.find((m: { bbsSignatureParamsLabel?: string }) => typeof m.bbsSignatureParamsLabel === 'string')
    const ietf = bls.find((m: { bbsSignatureParamsLabel?: string }) => m.bbsSignatureParamsLabel === undefined)
    assert.ok(ed && bbs && ietf, JSON.stringify(doc.verificationMethod))
    assert.equal(bbs.type, 'Multikey')
    assert.equal(ietf.type, 'Multikey')
    assert.notEqual(ietf.publicKeyMultibase, bbs.publicKeyMultibase)
    assert.equal(ed.controller, signingDid)
    for (const m of doc.verificationMethod) assert.ok(doc.assertionMethod.includes(m.id))
    const rotated = await t.app.inject({
      method: 'POST',
      url: '/api/admin/keys/rotate',
      headers: { 'x-admin-key': 'test-admin-key-0123456789' },
      payload: { owner: signingDid, purpose: 'signing-ed25519' },
    })
    assert.equal(rotated.statusCode, 200, rotated.body)
    const after = (await t.app.inject({ method: 'GET', url: `/api/did/${signingDid}` })).json().didDocument
    assert.equal(after.verificationMethod.length, 5)
    assert.ok(after.assertionMethod.includes(ed.id), 'the retired key stays listed: what it signed still verifies')
  })

  it('is read and updated only by its DID', async () => {
    const got = await call('GET', `/api/issuer/${issuer.did}`, token)
    assert.equal(got.statusCode, 200)
    assert.equal(got.json().issuer.website, 'https://uni.example')
    assert.equal((await call('GET', `/api/issuer/${issuer.did}`, otherToken)).statusCode, 403)
    const upd = await call('PUT', `/api/issuer/${issuer.did}/update`, token, {
      description: 'Since 1900',
      website: null,
    })
    assert.equal(upd.statusCode, 200)
    assert.equal(upd.json().issuer.description, 'Since 1900')
    assert.equal(upd.json().issuer.website, null)
    assert.equal((await call('PUT', `/api/issuer/${issuer.did}/update`, token, {})).statusCode, 400)
    assert.equal((await call('PUT', `/api/issuer/${other.did}/update`, token, { name: 'x' })).statusCode, 403)
  })

  it('set-auth and authenticate need a fresh step-up signature', async () => {
    const loginProof = await issuer.proof(t.app)
    assert.equal((await call('POST', `/api/issuer/${issuer.did}/authenticate`, token, loginProof)).statusCode, 401)
    const stepUp = await issuer.proof(t.app, issuer.did, 'step-up')
    const ok = await call('POST', `/api/issuer/${issuer.did}/authenticate`, token, stepUp)
    assert.equal(ok.statusCode, 200, ok.body)
    assert.equal(ok.json().issuer_did, issuer.did)
    assert.equal((await call('POST', `/api/issuer/${issuer.did}/authenticate`, token, stepUp)).statusCode, 401)
    const set = await call('POST', `/api/issuer/${issuer.did}/set-auth`, token, {
      ...(await issuer.proof(t.app, issuer.did, 'step-up')),
      require_step_up: true,
    })
    assert.equal(set.statusCode, 200, set.body)
    assert.equal(set.json().issuer.require_step_up, true)
    // Another key cannot produce the step-up proof.
    const challenge = await other.challenge(t.app, issuer.did, 'step-up')
    assert.equal(
      (
        await call('POST', `/api/issuer/${issuer.did}/authenticate`, token, {
          did: issuer.did,
          challenge,
          signature: other.sign(challenge),
        })
      ).statusCode,
      401,
    )
  })
})

describe('issuer schemas', () => {
  let t: TestApp
  const issuer = new DidClient()
  const rival = new DidClient()
  let token: string
  let rivalToken: string
  before(async () => {
    t = await createTestApp()
    token = await issuer.login(t.app)
    rivalToken = await rival.login(t.app)
    await t.app.inject({ method: 'POST', url: '/api/issuer', headers: bearer(token), payload: { name: 'Uni' } })
    await t.app.inject({ method: 'POST', url: '/api/issuer', headers: bearer(rivalToken), payload: { name: 'Rival' } })
  })
  after(() => t.close())
  const base = () => `/api/issuer/${issuer.did}/schemas`
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, tok: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: bearer(tok),
      ...(payload === undefined ? {} : { payload: payload as object }),
    })

  it('creates a schema with the spec fields, published by CID in canonical JSON', async () => {
    const res = await call('POST', base(), token, SCHEMA)
    assert.equal(res.statusCode, 201, res.body)
    const schema = res.json().schema
    assert.equal(res.json().success, true)
    for (const field of [
      'id',
      'issuer_did',
      'name',
      'description',
      'version',
      'attributes',
      'extensions_allowed',
      'allowed_extensions',
      'evidence_allowed',
      'allowed_evidence',
      'ipfs_hash',
      'on_chain',
      'blockchain_tx',
      'created_at',
    ]) {
      assert.ok(field in schema, field)
    }
    assert.equal(schema.issuer_did, issuer.did)
    assert.deepEqual(schema.attributes[1], { name: 'birth_date', data_type: 'date', description: '', required: true })
    assert.equal(schema.on_chain, false)
    const published = await t.app.inject({ method: 'GET', url: `/api/ipfs/${schema.ipfs_hash}` })
    assert.equal(published.statusCode, 200)
    const doc = JSON.parse(published.body)
    assert.equal(published.body, canonicalize(doc))
    assert.equal(doc.id, schema.id)
    assert.deepEqual(doc.attributes, schema.attributes)
  })

  it('refuses invalid definitions with 400 and a duplicate name+version with 409', async () => {
    const bad = [
      { ...SCHEMA, version: undefined },
      { ...SCHEMA, attributes: [] },
      { ...SCHEMA, attributes: [{ name: 'x', data_type: 'decimal' }] },
      { ...SCHEMA, attributes: [{ name: '1bad', data_type: 'string' }] },
      {
        ...SCHEMA,
        attributes: [
          { name: 'a', data_type: 'string' },
          { name: 'a', data_type: 'number' },
        ],
      },
      { ...SCHEMA, evidence_allowed: false, allowed_evidence: ['x'] },
      { ...SCHEMA, attributes: [{ name: 'a', data_type: 'string', required: 'yes' }] },
    ]
    for (const body of bad) {
      const res = await call('POST', base(), token, body)
      assert.equal(res.statusCode, 400, JSON.stringify(body))
      assert.ok(res.json().message)
    }
    assert.equal((await call('POST', base(), token, SCHEMA)).statusCode, 409)
    assert.equal((await call('POST', base(), token, { ...SCHEMA, version: '2.0' })).statusCode, 201)
  })

  it('needs an issuer profile first', async () => {
    const nobody = new DidClient()
    const tok = await nobody.login(t.app)
    assert.equal((await call('POST', `/api/issuer/${nobody.did}/schemas`, tok, SCHEMA)).statusCode, 404)
  })

  it('lists with pagination, reads, updates (republishing), deletes; other issuers see 404', async () => {
    for (let i = 0; i < 3; i++) await call('POST', base(), token, { ...SCHEMA, name: `Extra ${i}` })
    const first = await call('GET', `${base()}?limit=2`, token)
    assert.equal(first.statusCode, 200)
    assert.equal(first.json().count, 2)
    const seen = first.json().data.map((s: { id: string }) => s.id)
    let cursor = first.json().next_cursor
    while (cursor) {
      const next = await call('GET', `${base()}?limit=2&cursor=${cursor}`, token)
      seen.push(...next.json().data.map((s: { id: string }) => s.id))
      cursor = next.json().next_cursor
    }
    assert.equal(seen.length, 5)
    assert.equal(new Set(seen).size, 5)
    assert.equal((await call('GET', `${base()}?limit=0`, token)).statusCode, 400)

    const id = seen[0]
    const one = await call('GET', `${base()}/${id}`, token)
    assert.equal(one.statusCode, 200)
    const updated = await call('PUT', `${base()}/${id}`, token, { description: 'Changed' })
    assert.equal(updated.statusCode, 200)
    assert.equal(updated.json().schema.description, 'Changed')
    assert.notEqual(updated.json().schema.ipfs_hash, one.json().schema.ipfs_hash)

    // The rival asks for this schema under its own DID: it does not exist there.
    const rivalPath = `/api/issuer/${rival.did}/schemas/${id}`
    assert.equal((await call('GET', rivalPath, rivalToken)).statusCode, 404)
    assert.equal((await call('PUT', rivalPath, rivalToken, { description: 'x' })).statusCode, 404)
    assert.equal((await call('DELETE', rivalPath, rivalToken)).statusCode, 404)
    assert.equal((await call('GET', `${base()}/${id}`, rivalToken)).statusCode, 403)

    assert.equal((await call('DELETE', `${base()}/${id}`, token)).statusCode, 200)
    assert.equal((await call('GET', `${base()}/${id}`, token)).statusCode, 404)
    assert.equal((await call('DELETE', `${base()}/${id}`, token)).statusCode, 404)
  })
})
