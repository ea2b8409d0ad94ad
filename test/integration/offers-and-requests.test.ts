import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodeJwt } from 'jose'
import { DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

const SCHEMA = {
  name: 'Membership',
  version: '1',
  attributes: [
    { name: 'member_name', data_type: 'string', required: true },
    { name: 'level', data_type: 'string', required: true },
    { name: 'since', data_type: 'date' },
  ],
}

describe('offers and credential requests', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const rival = new IssuerActor()
  const holder = new DidClient()
  const stranger = new DidClient()
  let holderToken: string
  let strangerToken: string
  let schemaId: string

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Club')
    await rival.setUp(t.app, 'Rival')
    schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    strangerToken = await stranger.login(t.app)
  })
  after(() => t.close())

  const request = (body: object, token = holderToken) =>
    callAs(t.app, 'POST', '/api/wallet/credential-request', token, body)
  const decision = (
    id: string,
    action: 'challenge' | 'approve' | 'reject',
    body?: object,
    token = issuer.token,
    did = issuer.did,
  ) =>
    callAs(
      t.app,
      action === 'challenge' ? 'GET' : 'POST',
      `/api/wallet/issuer/${did}/request/${id}/${action}`,
      token,
      body,
    )
  const approveSigned = async (id: string, attributes?: object) => {
    const ch = await decision(id, 'challenge')
    assert.equal(ch.statusCode, 200, ch.body)
    return decision(id, 'approve', {
      signature: issuer.sign(ch.json().challenge),
      ...(attributes ? { attributes } : {}),
    })
  }

  it('creates offers with a QR payload and image, lists them, hides them from others', async () => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
      credential_type: 'Membership',
      schema_id: schemaId,
      attributes: { level: 'gold' },
      max_uses: 2,
    })
    assert.equal(res.statusCode, 201, res.body)
    const { offer, qr_code_data } = res.json()
    const payload = JSON.parse(qr_code_data)
    assert.equal(payload.offer_id, offer.id)
    assert.equal(payload.issuer_did, issuer.did)
    const qr = await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/offers/${offer.id}/qr`, issuer.token)
    assert.equal(qr.statusCode, 200)
    assert.equal(qr.json().qr_code_data, qr_code_data)
    const svg = Buffer.from(qr.json().qr_image.replace(/^data:image\/svg\+xml;base64,/, ''), 'base64').toString()
    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    assert.equal((await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/offers`, issuer.token)).json().count, 1)
    assert.equal(
      (await callAs(t.app, 'GET', `/api/issuer/${rival.did}/offers/${offer.id}/qr`, rival.token)).statusCode,
      404,
    )
    for (const bad of [
      { schema_id: schemaId },
      { credential_type: 'M', schema_id: 'schema-x' },
      { credential_type: 'M', schema_id: schemaId, attributes: { level: 5 } },
      { credential_type: 'M', schema_id: schemaId, max_uses: 0 },
      { credential_type: 'M', schema_id: schemaId, expires_at: '2000-01-01T00:00:00Z' },
    ]) {
      const r = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, bad)
      assert.equal(r.statusCode, 400, JSON.stringify(bad))
      assert.ok(r.json().message)
    }
  })

  it('lets a holder request by schema, and the issuer approve with a signed challenge: the credential goes to the holder', async () => {
    const res = await request({
      issuer_did: issuer.did,
      schema_id: schemaId,
      credential_type: 'Membership',
      attributes: { member_name: 'Hal' },
    })
    assert.equal(res.statusCode, 201, res.body)
    const req = res.json().request
    assert.equal(req.status, 'pending')
    assert.equal(req.holder_did, holder.did)
    const mine = await callAs(t.app, 'GET', `/api/wallet/${holder.did}/credential-requests`, holderToken)
    assert.equal(mine.json().count, 1)
    assert.equal(
      (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/credential-requests`, strangerToken)).statusCode,
      403,
    )
    const inbox = await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/requests?status=pending`, issuer.token)
    assert.equal(inbox.json().data[0].id, req.id)
    assert.equal(
      (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/requests/${req.id}`, issuer.token)).json().request.id,
      req.id,
    )
    assert.equal(
      (await callAs(t.app, 'GET', `/api/issuer/${rival.did}/requests/${req.id}`, rival.token)).statusCode,
      404,
    )

    // A signature by another key, or over a login challenge, does not approve.
    const ch = (await decision(req.id, 'challenge')).json().challenge
    assert.equal(
      (await decision(req.id, 'approve', { signature: stranger.sign(ch), attributes: { level: 'silver' } })).statusCode,
      401,
    )
    const approved = await approveSigned(req.id, { level: 'silver' })
    assert.equal(approved.statusCode, 200, approved.body)
    const credential = approved.json().credential.credential
    assert.equal(credential.owner_did, holder.did)
    assert.deepEqual(credential.credential_data, { member_name: 'Hal', level: 'silver' })
    assert.equal(decodeJwt(approved.json().credential.jwt).sub, holder.did)
    const after = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/requests/${req.id}`, issuer.token)).json()
      .request
    assert.equal(after.status, 'approved')
    assert.equal(after.credential_id, credential.id)

    // Approving twice, or rejecting an approved request: 409.
    assert.equal((await decision(req.id, 'challenge')).statusCode, 409)
    assert.equal((await decision(req.id, 'approve', { signature: issuer.sign(ch), challenge: ch })).statusCode, 409)
    assert.equal((await decision(req.id, 'reject', {})).statusCode, 409)
  })

  it('rejects; approving a rejected request is 409', async () => {
    const req = (await request({ issuer_did: issuer.did, schema_id: schemaId, credential_type: 'Membership' })).json()
      .request
    const rejected = await decision(req.id, 'reject', { reason: 'Not a member' })
    assert.equal(rejected.statusCode, 200, rejected.body)
    assert.equal(rejected.json().request.status, 'rejected')
    assert.equal(rejected.json().request.reason, 'Not a member')
    const ch = await issuer.challenge(t.app, issuer.did, 'step-up')
    assert.equal((await decision(req.id, 'approve', { signature: issuer.sign(ch), challenge: ch })).statusCode, 409)
  })

  it('approves concurrently exactly once: one credential, the rest 401/409', async () => {
    const req = (
      await request({
        issuer_did: issuer.did,
        schema_id: schemaId,
        credential_type: 'Membership',
        attributes: { member_name: 'Race', level: 'x' },
      })
    ).json().request
    // Each attempt brings its own valid signed challenge, so only the request state decides.
    const attempts = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const ch = await issuer.challenge(t.app, issuer.did, 'step-up')
        return { signature: issuer.sign(ch), challenge: ch }
      }),
    )
    const results = await Promise.all(attempts.map((body) => decision(req.id, 'approve', body)))
    const codes = results.map((r) => r.statusCode)
    assert.equal(codes.filter((c) => c === 200).length, 1, codes.join(','))
    assert.ok(
      codes.every((c) => c === 200 || c === 409 || c === 401),
      codes.join(','),
    )
    const issued = await callAs(
      t.app,
      'GET',
      `/api/issuer/${issuer.did}/credentials?subject=${encodeURIComponent(holder.did)}&limit=200`,
      issuer.token,
    )
    const fromRequest = issued
      .json()
      .data.filter((c: { credential_data: { member_name?: string } }) => c.credential_data.member_name === 'Race')
    assert.equal(fromRequest.length, 1)
  })

  it('takes requests by offer: schema and attributes from the offer, uses limited, targeted offers private', async () => {
    const offer = (
      await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
        credential_type: 'Membership',
        schema_id: schemaId,
        attributes: { level: 'bronze' },
        max_uses: 1,
      })
    ).json().offer
    const res = await request({ issuer_did: issuer.did, offer_id: offer.id, attributes: { member_name: 'Olga' } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().request.schema_id, schemaId)
    assert.deepEqual(res.json().request.attributes, { member_name: 'Olga', level: 'bronze' })
    assert.equal((await request({ issuer_did: issuer.did, offer_id: offer.id })).statusCode, 404)
    const targeted = (
      await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
        credential_type: 'Membership',
        schema_id: schemaId,
        subject_did: holder.did,
      })
    ).json().offer
    assert.equal((await request({ issuer_did: issuer.did, offer_id: targeted.id }, strangerToken)).statusCode, 404)
    assert.equal((await request({ issuer_did: issuer.did, offer_id: targeted.id })).statusCode, 201)
  })

  it("refuses bad requests and decisions on other issuers' requests", async () => {
    const cases: object[] = [
      {},
      { issuer_did: issuer.did },
      { issuer_did: issuer.did, schema_id: schemaId },
      { issuer_did: issuer.did, schema_id: 'schema-unknown', credential_type: 'M' },
      { issuer_did: stranger.did, schema_id: schemaId, credential_type: 'M' },
      { issuer_did: issuer.did, schema_id: schemaId, credential_type: 'M', attributes: { level: 1 } },
      { issuer_did: issuer.did, schema_id: schemaId, credential_type: 'M', attributes: { unknown_attr: 'x' } },
      { issuer_did: 'nope', schema_id: schemaId, credential_type: 'M' },
    ]
    for (const body of cases) {
      const res = await request(body)
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)} ${res.body}`)
      assert.ok(res.json().message)
    }
    assert.equal(
      (
        await callAs(t.app, 'POST', '/api/wallet/credential-request', undefined, {
          issuer_did: issuer.did,
          schema_id: schemaId,
          credential_type: 'M',
        })
      ).statusCode,
      401,
    )
    const req = (await request({ issuer_did: issuer.did, schema_id: schemaId, credential_type: 'Membership' })).json()
      .request
    // The rival, acting under its own DID, does not see this issuer's request; under this issuer's DID it is 403.
    assert.equal((await decision(req.id, 'challenge', undefined, rival.token, rival.did)).statusCode, 404)
    assert.equal((await decision(req.id, 'reject', {}, rival.token, rival.did)).statusCode, 404)
    assert.equal((await decision(req.id, 'challenge', undefined, rival.token)).statusCode, 403)
    assert.equal((await decision(req.id, 'approve', { signature: 'x' }, holderToken)).statusCode, 403)
    assert.equal((await decision('request-unknown', 'challenge')).statusCode, 404)
    assert.equal((await decision(req.id, 'approve', {})).statusCode, 400)
    // Approving with the required attribute still missing is 400, and the request stays pending.
    const missing = await approveSigned(req.id)
    assert.equal(missing.statusCode, 400)
    assert.match(missing.json().message, /member_name|level/)
    assert.equal(
      (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/requests/${req.id}`, issuer.token)).json().request.status,
      'pending',
    )
    const stats = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/statistics`, issuer.token)).json().statistics
    assert.ok(stats.requests_pending >= 1)
    assert.ok(stats.requests_approved >= 2)
    assert.equal(stats.requests_rejected, 1)
  })
})
