/**
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header, docs/idempotency.md) on the
 * verifier's creating POSTs, the holder's approval, direct presentation submission, QR codes and
 * domain challenges. Real parts: the app, the database (PGlite or PostgreSQL, per the runner),
 * VP-JWTs signed by the test's own keys. Faked: DNS (an in-memory TXT table). Resources are
 * counted through listing routes or SQL, never through the code under test.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { sql, type RawBuilder } from 'kysely'
import { buildApp } from '../../src/app.js'
import type { DnsResolver } from '../../src/adapters/dns.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { IssuerActor, JWT_DEGREE_SCHEMA } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>
type Inject = TestApp['app']

// A callback receiver the guarded POST refuses (a private address): its events stay in the outbox, countable.
const CALLBACK_URL = 'http://127.0.0.1:9/presentations'

describe('Idempotency-Key on verifier, presentation, QR and domain POSTs', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const verifier = new DidClient()
  const holder = new DidClient()
  const rival = new DidClient()
  let verifierToken: string
  let holderToken: string
  let rivalToken: string
  let schemaId: string
  const txt = new Map<string, string[][]>()
  const dns: DnsResolver = {
    resolveTxt: async (name) => {
      const answer = txt.get(name)
      if (!answer) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
      return answer
    },
  }

  before(async () => {
    t = await createTestApp({ dns, env: { JWT_TTL_SECONDS: String(30 * 86400) } })
    await issuer.setUp(t.app)
    schemaId = await issuer.schema(t.app, JWT_DEGREE_SCHEMA)
    verifierToken = await verifier.login(t.app)
    holderToken = await holder.login(t.app)
    rivalToken = await rival.login(t.app)
  })
  after(() => t.close())

  const post = (url: string, token: string, payload: object, key?: string, app: Inject = t.app) =>
    app.inject({
      method: 'POST',
      url,
      headers: { ...bearer(token), ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload,
    })
  const get = async (url: string, token: string): Promise<Json> => {
    const res = await t.app.inject({ method: 'GET', url, headers: bearer(token) })
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
    return res.json()
  }
  const newKey = () => `"${randomUUID()}"`
  const db = () => t.deps.database.db
  const count = async (query: RawBuilder<unknown>) =>
    Number(((await query.execute(db())).rows[0] as { n: string | number }).n)

  const requestBody = (purpose = 'Hiring', extra: Json = {}) => ({
    verifier_did: verifier.did,
    presentation_type: 'DegreeCheck',
    required_credentials: [{ credential_type: 'Degree', issuer_did: issuer.did, required_attributes: ['given_name'] }],
    purpose,
    ...extra,
  })
  const createRequest = async (extra: Json = {}): Promise<Json> => {
    const res = await post('/api/verifier/requests', verifierToken, requestBody('Hiring', extra))
    assert.equal(res.statusCode, 201, res.body)
    return res.json().request
  }
  const requestIds = async (): Promise<string[]> =>
    (await get(`/api/verifier/${verifier.did}/requests?limit=200`, verifierToken)).data.map((r: Json) => r.id)
  const presetIds = async (): Promise<string[]> =>
    (await get(`/api/verifier/${verifier.did}/presets?limit=200`, verifierToken)).data.map((p: Json) => p.id)
  const holderPresentations = async (): Promise<Json[]> =>
    (await get(`/api/wallet/${holder.did}/presentations?limit=200`, holderToken)).data
  const verifierPresentations = async (): Promise<Json[]> =>
    (await get(`/api/verifier/${verifier.did}/presentations?limit=200`, verifierToken)).presentations
  const outboxEvents = (requestId: string) =>
    count(sql`select count(*) as n from callback_outbox where payload->>'request_id' = ${requestId}`)

  describe('POST /api/verifier (one profile per DID)', () => {
    const profiles = (did: string) => count(sql`select count(*) as n from verifiers where did = ${did}`)

    it('a retry with the same key answers the first 201 (not 409), and one profile exists', async () => {
      const someone = new DidClient()
      const token = await someone.login(t.app)
      const key = newKey()
      const first = await post('/api/verifier', token, { name: 'Bar' }, key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await post('/api/verifier', token, { name: 'Bar' }, key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      assert.equal((await get(`/api/verifier/${someone.did}/profile`, token)).verifier.name, 'Bar')
      assert.equal(await profiles(someone.did), 1)
      // Unchanged without the key: a second profile for the DID is a conflict.
      assert.equal((await post('/api/verifier', token, { name: 'Bar' })).statusCode, 409)
    })

    it('the same key with another body answers 422 and changes nothing', async () => {
      const someone = new DidClient()
      const token = await someone.login(t.app)
      const key = newKey()
      assert.equal((await post('/api/verifier', token, { name: 'Bar' }, key)).statusCode, 201)
      const other = await post('/api/verifier', token, { name: 'Baz' }, key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal((await get(`/api/verifier/${someone.did}/profile`, token)).verifier.name, 'Bar')
      assert.equal(await profiles(someone.did), 1)
    })

    it('a refused creation (the DID has a profile) records no key: the key answers 409 again, not a replay nor 422', async () => {
      const someone = new DidClient()
      const token = await someone.login(t.app)
      assert.equal((await post('/api/verifier', token, { name: 'First' })).statusCode, 201)
      const key = newKey()
      assert.equal((await post('/api/verifier', token, { name: 'Second' }, key)).statusCode, 409)
      assert.equal((await post('/api/verifier', token, { name: 'Third' }, key)).statusCode, 409)
      assert.equal(await count(sql`select count(*) as n from idempotency_keys where caller_did = ${someone.did}`), 0)
      assert.equal((await get(`/api/verifier/${someone.did}/profile`, token)).verifier.name, 'First')
    })
  })

  describe('POST /api/verifier/requests', () => {
    it('a retry with the same key answers the first 201, and one request exists', async () => {
      const before = await requestIds()
      const key = newKey()
      const first = await post('/api/verifier/requests', verifierToken, requestBody(), key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await post('/api/verifier/requests', verifierToken, requestBody(), key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      const after = await requestIds()
      assert.equal(after.length, before.length + 1)
      assert.ok(after.includes(first.json().request.id))
      // The replayed nonce and QR payload are the stored request's: a holder can answer it.
      const stored = await get(`/api/verifier/requests/${first.json().request.id}`, verifierToken)
      assert.equal(stored.request.nonce, again.json().request.nonce)
      assert.equal(stored.qr_code_data, again.json().qr_code_data)
    })

    it('the same key with another body answers 422 and creates nothing', async () => {
      const key = newKey()
      assert.equal((await post('/api/verifier/requests', verifierToken, requestBody('Hiring'), key)).statusCode, 201)
      const before = await requestIds()
      const other = await post('/api/verifier/requests', verifierToken, requestBody('Renting'), key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.deepEqual(await requestIds(), before)
    })

    it('without a key each request creates one', async () => {
      const before = (await requestIds()).length
      assert.equal((await post('/api/verifier/requests', verifierToken, requestBody())).statusCode, 201)
      assert.equal((await post('/api/verifier/requests', verifierToken, requestBody())).statusCode, 201)
      assert.equal((await requestIds()).length, before + 2)
    })

    it('a refused request (unknown preset) creates nothing and its key can be used again', async () => {
      const before = await requestIds()
      const key = newKey()
      const refused = await post(
        '/api/verifier/requests',
        verifierToken,
        { verifier_did: verifier.did, preset_id: 'preset-none' },
        key,
      )
      assert.equal(refused.statusCode, 400, refused.body)
      assert.deepEqual(await requestIds(), before)
      const ok = await post('/api/verifier/requests', verifierToken, requestBody(), key)
      assert.equal(ok.statusCode, 201, ok.body)
    })
  })

  describe('POST /api/verifier/:did/presets', () => {
    const presetBody = (name: string) => ({
      name,
      presentation_type: 'DegreeCheck',
      required_credentials: [{ credential_type: 'Degree' }],
      purpose: 'Hiring',
    })
    const send = (payload: object, key?: string) =>
      post(`/api/verifier/${verifier.did}/presets`, verifierToken, payload, key)

    it('a retry with the same key answers the first 201, and one preset exists', async () => {
      const before = await presetIds()
      const key = newKey()
      const first = await send(presetBody('Adults'), key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await send(presetBody('Adults'), key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      const after = await presetIds()
      assert.equal(after.length, before.length + 1)
      assert.ok(after.includes(first.json().preset.id))
    })

    it('the same key with another body answers 422 and creates nothing', async () => {
      const key = newKey()
      assert.equal((await send(presetBody('A'), key)).statusCode, 201)
      const before = await presetIds()
      const other = await send(presetBody('B'), key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.deepEqual(await presetIds(), before)
    })

    it('without a key each request creates one', async () => {
      const before = (await presetIds()).length
      assert.equal((await send(presetBody('C'))).statusCode, 201)
      assert.equal((await send(presetBody('C'))).statusCode, 201)
      assert.equal((await presetIds()).length, before + 2)
    })
  })

  describe('POST /api/wallet/presentation-requests/:request_id/approve', () => {
    let credential: { id: string; jwt: string }

    before(async () => {
      const res = await post(`/api/issuer/${issuer.did}/issue`, issuer.token, {
        credential_type: 'Degree',
        schema_id: schemaId,
        subject_did: holder.did,
        attributes: { given_name: 'Ada', gpa: 3.5 },
      })
      assert.equal(res.statusCode, 201, res.body)
      credential = { id: res.json().credential.id, jwt: res.json().credential.jwt }
    })

    /** A request with a callback, taken into the holder's inbox, and the VP-JWT that answers it. */
    const openRequest = async () => {
      const request = await createRequest({ callback_url: CALLBACK_URL })
      const take = await post('/api/wallet/presentation-requests', holderToken, { request_id: request.id })
      assert.equal(take.statusCode, 201, take.body)
      const vp = signPresentation(holder, { aud: verifier.did, nonce: request.nonce, credentials: [credential.jwt] })
      return { request, body: { credential_ids: [credential.id], presentation_jwt: vp } }
    }
    const approve = (requestId: string, payload: object, key?: string, app?: Inject) =>
      post(`/api/wallet/presentation-requests/${requestId}/approve`, holderToken, payload, key, app)
    const answersTo = async (requestId: string) =>
      (await holderPresentations()).filter((p) => p.request_id === requestId)

    it('a retry with the same key answers the first 201; one presentation, one callback event', async () => {
      const { request, body } = await openRequest()
      const key = newKey()
      const first = await approve(request.id, body, key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await approve(request.id, body, key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      assert.deepEqual(
        (await answersTo(request.id)).map((p) => p.id),
        [first.json().presentation.id],
      )
      assert.equal((await verifierPresentations()).filter((p) => p.request_id === request.id).length, 1)
      assert.equal(await outboxEvents(request.id), 1)
      const status = await get(`/api/wallet/presentation-requests/${request.id}/status`, holderToken)
      assert.equal(status.status, 'approved')
      assert.equal(status.presentation_id, first.json().presentation.id)
    })

    it('the same key with another body answers 422 and stores nothing', async () => {
      const { request, body } = await openRequest()
      const key = newKey()
      assert.equal((await approve(request.id, body, key)).statusCode, 201)
      const other = await approve(
        request.id,
        {
          ...body,
          presentation_jwt: signPresentation(holder, { aud: verifier.did, nonce: request.nonce, credentials: [] }),
        },
        key,
      )
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal((await answersTo(request.id)).length, 1)
      assert.equal(await outboxEvents(request.id), 1)
    })

    it('without a key a request is answered once, as before: the repeat is 409', async () => {
      const { request, body } = await openRequest()
      assert.equal((await approve(request.id, body)).statusCode, 201)
      const repeat = await approve(request.id, body)
      assert.equal(repeat.statusCode, 409, repeat.body)
      assert.equal((await answersTo(request.id)).length, 1)
      assert.equal(await outboxEvents(request.id), 1)
    })

    it('two requests answered without keys make two presentations', async () => {
      const before = (await holderPresentations()).length
      for (let i = 0; i < 2; i++) {
        const { request, body } = await openRequest()
        assert.equal((await approve(request.id, body)).statusCode, 201)
      }
      assert.equal((await holderPresentations()).length, before + 2)
    })

    it('a refused approval stores nothing, leaves the request open, and its key can be used again', async () => {
      const { request, body } = await openRequest()
      const key = newKey()
      const refused = await approve(request.id, { ...body, credential_ids: ['aly:not-in-the-wallet'] }, key)
      assert.equal(refused.statusCode, 400, refused.body)
      assert.equal((await answersTo(request.id)).length, 0)
      assert.equal(await outboxEvents(request.id), 0)
      assert.equal((await get(`/api/verifier/requests/${request.id}`, verifierToken)).request.status, 'pending')
      const ok = await approve(request.id, body, key)
      assert.equal(ok.statusCode, 201, ok.body)
      assert.equal(await outboxEvents(request.id), 1)
    })

    it('a keyed approval of an answered request (409) records no key: another body with it is 409 again, not 422', async () => {
      const { request, body } = await openRequest()
      assert.equal((await approve(request.id, body)).statusCode, 201)
      const key = newKey()
      assert.equal((await approve(request.id, body, key)).statusCode, 409)
      const other = await approve(
        request.id,
        {
          ...body,
          presentation_jwt: signPresentation(holder, { aud: verifier.did, nonce: request.nonce, credentials: [] }),
        },
        key,
      )
      assert.equal(other.statusCode, 409, other.body)
      assert.equal(await outboxEvents(request.id), 1)
    })

    it('five concurrent approvals with one key store one presentation and one event; the others replay it or answer 409', async () => {
      const { request, body } = await openRequest()
      const key = newKey()
      const answers = await Promise.all(Array.from({ length: 5 }, () => approve(request.id, body, key)))
      for (const r of answers) assert.ok(r.statusCode === 201 || r.statusCode === 409, `${r.statusCode} ${r.body}`)
      const created = answers.filter((r) => r.statusCode === 201)
      assert.ok(created.length >= 1)
      for (const r of created) assert.deepEqual(r.json(), created[0]!.json())
      assert.equal((await answersTo(request.id)).length, 1)
      assert.equal(await outboxEvents(request.id), 1)
      const retry = await approve(request.id, body, key)
      assert.equal(retry.statusCode, 201, retry.body)
      assert.deepEqual(retry.json(), created[0]!.json())
    })

    it('duplicates sent to two instances on one database store one presentation and one event', async () => {
      const second = await buildApp(t.config, {
        ...t.deps,
        database: { ...t.deps.database, close: async () => undefined },
      })
      await second.ready()
      try {
        const { request, body } = await openRequest()
        const key = newKey()
        const answers = await Promise.all([
          approve(request.id, body, key),
          approve(request.id, body, key, second),
          approve(request.id, body, key),
          approve(request.id, body, key, second),
        ])
        for (const r of answers) assert.ok(r.statusCode === 201 || r.statusCode === 409, `${r.statusCode} ${r.body}`)
        const created = answers.filter((r) => r.statusCode === 201)
        assert.ok(created.length >= 1)
        for (const r of created) assert.deepEqual(r.json(), created[0]!.json())
        assert.equal((await answersTo(request.id)).length, 1)
        assert.equal(await outboxEvents(request.id), 1)
        // Either instance replays the recorded answer to a later retry.
        for (const app of [t.app, second])
          assert.deepEqual((await approve(request.id, body, key, app)).json(), created[0]!.json())
      } finally {
        await second.close()
      }
    })
  })

  describe('POST /api/verifier/presentations', () => {
    const vpFor = (nonce: string) => signPresentation(holder, { aud: verifier.did, nonce, credentials: [] })
    const submit = (token: string, payload: object, key?: string) =>
      post('/api/verifier/presentations', token, payload, key)

    it('a retry with the same key answers the first 201, and one presentation exists', async () => {
      const before = (await verifierPresentations()).length
      const key = newKey()
      const payload = { presentation_jwt: vpFor(randomUUID()) }
      const first = await submit(holderToken, payload, key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await submit(holderToken, payload, key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      const after = await verifierPresentations()
      assert.equal(after.length, before + 1)
      assert.ok(after.some((p) => p.id === first.json().presentation.id))
    })

    it('answering a request: a retry replays the first answer and queues no second callback event', async () => {
      const request = await createRequest({ callback_url: CALLBACK_URL })
      const key = newKey()
      const payload = { presentation_jwt: vpFor(request.nonce), request_id: request.id }
      const first = await submit(verifierToken, payload, key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await submit(verifierToken, payload, key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      assert.equal((await verifierPresentations()).filter((p) => p.request_id === request.id).length, 1)
      assert.equal(await outboxEvents(request.id), 1)
      // Without the key, a second answer to the request is refused as before.
      assert.equal((await submit(verifierToken, payload)).statusCode, 409)
    })

    it('the same key with another body answers 422 and stores nothing', async () => {
      const key = newKey()
      assert.equal((await submit(holderToken, { presentation_jwt: vpFor(randomUUID()) }, key)).statusCode, 201)
      const before = (await verifierPresentations()).length
      const other = await submit(holderToken, { presentation_jwt: vpFor(randomUUID()) }, key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal((await verifierPresentations()).length, before)
    })

    it('without a key each submission stores one', async () => {
      const before = (await verifierPresentations()).length
      const payload = { presentation_jwt: vpFor(randomUUID()) }
      assert.equal((await submit(holderToken, payload)).statusCode, 201)
      assert.equal((await submit(holderToken, payload)).statusCode, 201)
      assert.equal((await verifierPresentations()).length, before + 2)
    })

    it('a refused submission (unknown request_id) stores nothing and its key can be used again', async () => {
      const before = (await verifierPresentations()).length
      const key = newKey()
      const refused = await submit(
        holderToken,
        { presentation_jwt: vpFor(randomUUID()), request_id: 'presreq-none' },
        key,
      )
      assert.equal(refused.statusCode, 400, refused.body)
      assert.equal((await verifierPresentations()).length, before)
      assert.equal((await submit(holderToken, { presentation_jwt: vpFor(randomUUID()) }, key)).statusCode, 201)
    })
  })

  describe('POST /api/qr/presentation-request and /api/qr/credential-offer (a new short id per call)', () => {
    const codes = (owner: string) => count(sql`select count(*) as n from qr_codes where owner_did = ${owner}`)
    const resolves = async (shortId: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/qr/resolve/${shortId}` })).statusCode === 200

    it('a retry with the same key answers the first code, and one code exists', async () => {
      const request = await createRequest()
      const before = await codes(verifier.did)
      const key = newKey()
      const first = await post('/api/qr/presentation-request', verifierToken, { request_id: request.id }, key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await post('/api/qr/presentation-request', verifierToken, { request_id: request.id }, key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      assert.equal(await codes(verifier.did), before + 1)
      assert.ok(await resolves(again.json().short_id))
    })

    it('the same key with another body answers 422 and stores nothing', async () => {
      const [a, b] = [await createRequest(), await createRequest()]
      const key = newKey()
      assert.equal(
        (await post('/api/qr/presentation-request', verifierToken, { request_id: a.id }, key)).statusCode,
        201,
      )
      const before = await codes(verifier.did)
      const other = await post('/api/qr/presentation-request', verifierToken, { request_id: b.id }, key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal(await codes(verifier.did), before)
    })

    it('without a key each call stores a new code', async () => {
      const request = await createRequest()
      const before = await codes(verifier.did)
      const a = await post('/api/qr/presentation-request', verifierToken, { request_id: request.id })
      const b = await post('/api/qr/presentation-request', verifierToken, { request_id: request.id })
      assert.notEqual(a.json().short_id, b.json().short_id)
      assert.equal(await codes(verifier.did), before + 2)
    })

    it("a refused call (another verifier's request) stores nothing and its key can be used again", async () => {
      const request = await createRequest()
      const before = await codes(rival.did)
      const key = newKey()
      assert.equal(
        (await post('/api/qr/presentation-request', rivalToken, { request_id: request.id }, key)).statusCode,
        404,
      )
      assert.equal(await codes(rival.did), before)
      const own = await post('/api/verifier/requests', rivalToken, { ...requestBody(), verifier_did: rival.did })
      assert.equal(own.statusCode, 201, own.body)
      assert.equal(
        (await post('/api/qr/presentation-request', rivalToken, { request_id: own.json().request.id }, key)).statusCode,
        201,
      )
    })

    it('credential offers: a retry answers the first code, another body 422, no key two codes', async () => {
      const offer = async () => {
        const res = await post(`/api/issuer/${issuer.did}/offers`, issuer.token, {
          credential_type: 'Degree',
          schema_id: schemaId,
        })
        assert.equal(res.statusCode, 201, res.body)
        return res.json().offer.id as string
      }
      const [o1, o2] = [await offer(), await offer()]
      const send = (offerId: string, key?: string) =>
        post('/api/qr/credential-offer', issuer.token, { offer_id: offerId }, key)
      const before = await codes(issuer.did)
      const key = newKey()
      const first = await send(o1, key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await send(o1, key)
      assert.deepEqual([again.statusCode, again.json()], [201, first.json()])
      assert.equal(await codes(issuer.did), before + 1)
      const other = await send(o2, key)
      assert.equal(other.statusCode, 422, other.body)
      assert.equal(await codes(issuer.did), before + 1)
      assert.equal((await send(o2)).statusCode, 201)
      assert.equal((await send(o2)).statusCode, 201)
      assert.equal(await codes(issuer.did), before + 3)
      assert.equal(
        (await t.app.inject({ method: 'GET', url: `/api/qr/resolve/${first.json().short_id}` })).json().payload
          .offer_id,
        o1,
      )
    })
  })

  describe("POST /api/domain/challenge (a new challenge replaces the domain's earlier one)", () => {
    const challengeOf = async (domain: string): Promise<Json | null> => {
      const status = await get(`/api/domain/status/${verifier.did}?domain=${domain}`, verifierToken)
      return status.domains[0]?.challenge ?? null
    }
    const send = (domain: string, key?: string) =>
      post('/api/domain/challenge', verifierToken, { did: verifier.did, domain }, key)

    it('a retry with the same key answers the first challenge, which stays current; its token verifies', async () => {
      const domain = 'first.example.com'
      const key = newKey()
      const first = await send(domain, key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await send(domain, key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      const current = await challengeOf(domain)
      assert.equal(current?.id, first.json().challenge.id)
      assert.equal(current?.status, 'open')
      assert.equal(
        await count(
          sql`select count(*) as n from domain_challenges where did = ${verifier.did} and domain = ${domain}`,
        ),
        1,
      )
      // The replayed token is the one that proves the domain.
      const { dns_txt, token } = again.json().challenge
      txt.set(dns_txt.name, [[token]])
      const verified = await post('/api/domain/verify', verifierToken, { did: verifier.did, domain, method: 'dns_txt' })
      assert.equal(verified.statusCode, 200, verified.body)
      assert.equal(verified.json().verified, true)
    })

    it('the same key with another body answers 422 and creates nothing for the other domain', async () => {
      const key = newKey()
      assert.equal((await send('second.example.com', key)).statusCode, 201)
      const other = await send('third.example.com', key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal(
        (await get(`/api/domain/status/${verifier.did}?domain=third.example.com`, verifierToken)).domains.length,
        0,
      )
    })

    it('without a key each call creates a challenge, which replaces the one before', async () => {
      const domain = 'fourth.example.com'
      const a = (await send(domain)).json().challenge
      const b = (await send(domain)).json().challenge
      assert.notEqual(a.id, b.id)
      assert.notEqual(a.token, b.token)
      assert.equal((await challengeOf(domain))?.id, b.id)
    })

    it('a refused call (malformed domain) creates nothing and its key can be used again', async () => {
      const key = newKey()
      assert.equal((await send('not a domain', key)).statusCode, 400)
      assert.equal((await send('fifth.example.com', key)).statusCode, 201)
    })
  })
})
