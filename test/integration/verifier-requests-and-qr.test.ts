import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'

describe('verifier: profile, presentation requests, presets; QR group', () => {
  let t: TestApp
  const clock = new ManualClock()
  const verifier = new DidClient()
  const rival = new DidClient()
  const issuer = new IssuerActor()
  let token: string
  let rivalToken: string
  const body = {
    presentation_type: 'AgeCheck',
    required_credentials: [
      { credential_type: 'UniversityDegree', issuer_did: '', required_attributes: ['given_name'] },
    ],
    required_predicates: [{ attribute: 'birth_date', operator: '<=', value: '2008-11-22' }],
    purpose: 'Check the degree and that you are an adult',
  }

  before(async () => {
    t = await createTestApp({ clock })
    token = await verifier.login(t.app)
    rivalToken = await rival.login(t.app)
    await issuer.setUp(t.app)
    body.required_credentials[0]!.issuer_did = issuer.did
  })
  after(() => t.close())
  const create = (payload: object, tok = token) => callAs(t.app, 'POST', '/api/verifier/requests', tok, payload)

  it('creates the verifier profile once, for the token DID', async () => {
    const res = await callAs(t.app, 'POST', '/api/verifier', token, { name: 'Bar', website: 'https://bar.example' })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().verifier.did, verifier.did)
    assert.equal((await callAs(t.app, 'POST', '/api/verifier', token, { name: 'Again' })).statusCode, 409)
    assert.equal(
      (await callAs(t.app, 'POST', '/api/verifier', rivalToken, { did: verifier.did, name: 'Impostor' })).statusCode,
      403,
    )
    assert.equal((await callAs(t.app, 'POST', '/api/verifier', rivalToken, { name: 3 })).statusCode, 400)
    assert.equal(
      (await callAs(t.app, 'GET', `/api/verifier/${verifier.did}/profile`, token)).json().verifier.name,
      'Bar',
    )
    assert.equal((await callAs(t.app, 'GET', `/api/verifier/${rival.did}/profile`, rivalToken)).statusCode, 404)
  })

  it('creates a pending request with a nonce and a QR payload that carries it', async () => {
    const res = await create({ verifier_did: verifier.did, ...body })
    assert.equal(res.statusCode, 201, res.body)
    const { request, qr_code_data } = res.json()
    for (const field of [
      'id',
      'verifier_did',
      'presentation_type',
      'required_credentials',
      'required_predicates',
      'purpose',
      'status',
      'created_at',
      'expires_at',
    ])
      assert.ok(field in request, field)
    assert.equal(request.status, 'pending')
    assert.equal(request.verifier_did, verifier.did)
    assert.deepEqual(request.required_credentials, body.required_credentials)
    assert.ok(Buffer.from(request.nonce, 'base64url').length >= 16)
    const payload = JSON.parse(qr_code_data)
    assert.equal(payload.request_id, request.id)
    assert.equal(payload.nonce, request.nonce)
    assert.equal(payload.verifier_did, verifier.did)
    // Nonces are fresh per request.
    const second = (await create({ verifier_did: verifier.did, ...body })).json().request
    assert.notEqual(second.nonce, request.nonce)
    const got = await callAs(t.app, 'GET', `/api/verifier/requests/${request.id}`, token)
    assert.equal(got.statusCode, 200)
    assert.equal(got.json().request.nonce, request.nonce)
    assert.equal((await callAs(t.app, 'GET', `/api/verifier/requests/${request.id}`, rivalToken)).statusCode, 404)
    assert.equal((await callAs(t.app, 'GET', `/api/verifier/${verifier.did}/requests`, token)).json().count, 2)
    assert.equal((await callAs(t.app, 'GET', `/api/verifier/${verifier.did}/requests`, rivalToken)).statusCode, 403)
  })

  it('refuses bad bodies and another verifier_did', async () => {
    const cases: object[] = [
      { ...body },
      { verifier_did: verifier.did, ...body, presentation_type: undefined },
      { verifier_did: verifier.did, ...body, purpose: undefined },
      { verifier_did: verifier.did, ...body, required_credentials: undefined },
      { verifier_did: verifier.did, ...body, required_credentials: 'x' },
      { verifier_did: verifier.did, ...body, required_predicates: [{ attribute: 'age', operator: '=>', value: 18 }] },
      {
        verifier_did: verifier.did,
        ...body,
        required_predicates: [{ attribute: 'age', operator: '>=', value: 'eighteen' }],
      },
      { verifier_did: verifier.did, ...body, callback_url: 'ftp://x.example' },
      { verifier_did: verifier.did, ...body, expires_at: '2000-01-01T00:00:00Z' },
      { verifier_did: verifier.did, ...body, expires_at: '2099-01-01T00:00:00Z' },
      { verifier_did: verifier.did, ...body, preset_id: 'preset-unknown' },
    ]
    for (const c of cases) {
      const res = await create(c)
      assert.equal(res.statusCode, 400, `${JSON.stringify(c).slice(0, 150)} ${res.body}`)
      assert.ok(res.json().message)
    }
    assert.equal((await create({ verifier_did: verifier.did, ...body }, rivalToken)).statusCode, 403)
    assert.equal(
      (await callAs(t.app, 'POST', '/api/verifier/requests', undefined, { verifier_did: verifier.did, ...body }))
        .statusCode,
      401,
    )
  })

  it('reads a pending request as expired after expires_at', async () => {
    const res = await create({
      verifier_did: verifier.did,
      ...body,
      expires_at: new Date(clock.now().getTime() + 60_000).toISOString(),
    })
    const id = res.json().request.id
    clock.advance(61_000)
    assert.equal((await callAs(t.app, 'GET', `/api/verifier/requests/${id}`, token)).json().request.status, 'expired')
  })

  it('saves presets and creates requests from them', async () => {
    const saved = await callAs(t.app, 'POST', `/api/verifier/${verifier.did}/presets`, token, {
      name: 'Adult check',
      ...body,
      validity_seconds: 600,
    })
    assert.equal(saved.statusCode, 201, saved.body)
    const preset = saved.json().preset
    assert.equal((await callAs(t.app, 'GET', `/api/verifier/${verifier.did}/presets`, token)).json().count, 1)
    assert.equal(
      (await callAs(t.app, 'POST', `/api/verifier/${rival.did}/presets`, token, { name: 'x', ...body })).statusCode,
      403,
    )
    assert.equal(
      (await callAs(t.app, 'POST', `/api/verifier/${verifier.did}/presets`, token, { name: 'x' })).statusCode,
      400,
    )
    const res = await create({ verifier_did: verifier.did, preset_id: preset.id })
    assert.equal(res.statusCode, 201, res.body)
    const request = res.json().request
    assert.equal(request.presentation_type, body.presentation_type)
    assert.equal(request.preset_id, preset.id)
    assert.equal(Date.parse(request.expires_at) - Date.parse(request.created_at), 600_000)
    // Another verifier cannot use it.
    assert.equal((await create({ verifier_did: rival.did, preset_id: preset.id }, rivalToken)).statusCode, 400)
  })

  it('makes QR codes for own requests and offers, resolvable publicly by short id', async () => {
    const request = (await create({ verifier_did: verifier.did, ...body })).json().request
    const qr = await callAs(t.app, 'POST', '/api/qr/presentation-request', token, { request_id: request.id })
    assert.equal(qr.statusCode, 201, qr.body)
    const code = qr.json()
    assert.match(code.short_id, /^[0-9A-Za-z]{10}$/)
    assert.equal(code.short_url, `${t.config.publicBaseUrl}/api/qr/resolve/${code.short_id}`)
    assert.match(Buffer.from(code.qr_image.split(',')[1], 'base64').toString(), /^<svg/)
    const resolved = await t.app.inject({ method: 'GET', url: `/api/qr/resolve/${code.short_id}` })
    assert.equal(resolved.statusCode, 200)
    assert.equal(resolved.json().kind, 'presentation-request')
    assert.equal(resolved.json().payload.nonce, request.nonce)
    assert.deepEqual(resolved.json().payload, JSON.parse(code.qr_code_data))
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/qr/resolve/ZZZZZZZZZZ' })).statusCode, 404)
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/qr/resolve/bad-id!' })).statusCode, 400)
    // Someone else's request or offer: 404; no token: 401; bad body: 400.
    assert.equal(
      (await callAs(t.app, 'POST', '/api/qr/presentation-request', rivalToken, { request_id: request.id })).statusCode,
      404,
    )
    assert.equal(
      (await callAs(t.app, 'POST', '/api/qr/presentation-request', undefined, { request_id: request.id })).statusCode,
      401,
    )
    assert.equal((await callAs(t.app, 'POST', '/api/qr/presentation-request', token, {})).statusCode, 400)
    const schemaId = await issuer.schema(t.app, {
      name: 'S',
      version: '1',
      attributes: [{ name: 'a', data_type: 'string' }],
    })
    const offer = (
      await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
        credential_type: 'S',
        schema_id: schemaId,
      })
    ).json().offer
    const offerQr = await callAs(t.app, 'POST', '/api/qr/credential-offer', issuer.token, { offer_id: offer.id })
    assert.equal(offerQr.statusCode, 201, offerQr.body)
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/api/qr/resolve/${offerQr.json().short_id}` })).json().payload
        .offer_id,
      offer.id,
    )
    assert.equal(
      (await callAs(t.app, 'POST', '/api/qr/credential-offer', token, { offer_id: offer.id })).statusCode,
      404,
    )
    // The request's code dies with the request.
    clock.advance(2 * 3600_000)
    assert.equal((await t.app.inject({ method: 'GET', url: `/api/qr/resolve/${code.short_id}` })).statusCode, 404)
  })
})
