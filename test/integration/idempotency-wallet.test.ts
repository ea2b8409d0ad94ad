import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { bearer, DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { foreignCredential, multipart, PDF_BYTES, type Part } from '../helpers/wallet-fixtures.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Membership',
  version: '1',
  attributes: [
    { name: 'member_name', data_type: 'string', required: true },
    { name: 'level', data_type: 'string', required: true },
  ],
  anonymous_credentials: false,
}

/**
 * Idempotency-Key (docs/idempotency.md) on the holder's creating POSTs under /api/wallet. Every
 * count comes from a listing route, not from the code under test.
 */
describe('Idempotency-Key on the wallet routes', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const external = new DidClient()
  const verifier = new DidClient()
  let token: string
  let schemaId: string

  before(async () => {
    t = await createTestApp({ env: { EVIDENCE_ALLOWED_TYPES: 'application/pdf,text/plain' } })
    await issuer.setUp(t.app, 'Club')
    schemaId = await issuer.schema(t.app, SCHEMA)
    token = await holder.login(t.app)
    await verifier.login(t.app)
  })
  after(() => t.close())

  const newKey = () => `"${randomUUID()}"`
  const post = (path: string, payload: object, key?: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/wallet${path}`,
      headers: { ...bearer(token), ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload,
    })
  /** Every entry of a holder listing (`GET /api/wallet/:did/<what>`). */
  const listed = async (what: string): Promise<Json[]> => {
    const res = await callAs(
      t.app,
      'GET',
      `/api/wallet/${holder.did}/${what}${what.includes('?') ? '&' : '?'}limit=200`,
      token,
    )
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data
  }
  const ids = async (what: string) => (await listed(what)).map((row) => row.id as string)

  /** The same-key retry, the other-body 422 and the keyless pair, for one route. */
  const checkRoute = async (options: {
    send: (body: Json, key?: string) => Promise<{ statusCode: number; body: string; json(): Json }>
    body: (n: number) => Json
    listing: string
    idOf: (answer: Json) => string
  }) => {
    const { send, body, listing, idOf } = options
    const key = newKey()
    const before = await ids(listing)
    const first = await send(body(1), key)
    assert.equal(first.statusCode, 201, first.body)
    const again = await send(body(1), key)
    assert.equal(again.statusCode, 201, again.body)
    assert.deepEqual(again.json(), first.json())
    const afterRetry = await ids(listing)
    assert.equal(afterRetry.length, before.length + 1)
    assert.ok(afterRetry.includes(idOf(first.json())))

    const other = await send(body(2), key)
    assert.equal(other.statusCode, 422, other.body)
    assert.match(other.json().message, /Idempotency-Key/)
    assert.equal((await ids(listing)).length, before.length + 1)

    const a = await send(body(3))
    const b = await send(body(4))
    assert.equal(a.statusCode, 201, a.body)
    assert.equal(b.statusCode, 201, b.body)
    assert.notEqual(idOf(a.json()), idOf(b.json()))
    assert.equal((await ids(listing)).length, before.length + 3)
  }

  describe('POST /api/wallet/credential-request', () => {
    const offer = async (extra: Json = {}): Promise<string> => {
      const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
        credential_type: 'Membership',
        schema_id: schemaId,
        attributes: { level: 'gold' },
        ...extra,
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().offer.id
    }
    /** The offer's uses, by the issuer's offer listing. */
    const usesOf = async (offerId: string): Promise<number> => {
      const res = await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/offers?limit=200`, issuer.token)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data.find((o: Json) => o.id === offerId).uses
    }
    const request = (body: Json, key?: string) => post('/credential-request', body, key)

    it('by schema: a retry answers the first 201, another body 422, no key creates two', async () => {
      await checkRoute({
        send: request,
        body: (n) => ({
          issuer_did: issuer.did,
          schema_id: schemaId,
          credential_type: 'Membership',
          attributes: { member_name: `M${n}` },
        }),
        listing: 'credential-requests',
        idOf: (answer) => answer.request.id,
      })
    })

    it('by offer: a retry spends no second use of the offer', async () => {
      const offerId = await offer({ max_uses: 3 })
      const key = newKey()
      const body = { issuer_did: issuer.did, offer_id: offerId, attributes: { member_name: 'Hal' } }
      const first = await request(body, key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await request(body, key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      assert.equal(await usesOf(offerId), 1)
      assert.equal((await listed('credential-requests')).filter((r) => r.offer_id === offerId).length, 1)
    })

    it('concurrent duplicates with one key store one request and spend one use', async () => {
      const offerId = await offer({ max_uses: 10 })
      const key = newKey()
      const body = { issuer_did: issuer.did, offer_id: offerId }
      const answers = await Promise.all(Array.from({ length: 4 }, () => request(body, key)))
      for (const r of answers) assert.ok(r.statusCode === 201 || r.statusCode === 409, `${r.statusCode} ${r.body}`)
      const created = answers.filter((r) => r.statusCode === 201)
      assert.ok(created.length >= 1)
      assert.equal(new Set(created.map((r) => r.json().request.id)).size, 1)
      assert.equal(await usesOf(offerId), 1)
      assert.equal((await listed('credential-requests')).filter((r) => r.offer_id === offerId).length, 1)
    })

    it('a request the offer refuses spends no use and stores nothing; its key is free again', async () => {
      const offerId = await offer({ max_uses: 1 })
      const before = await ids('credential-requests')
      const key = newKey()
      // The offer fixes the schema: the refusal comes after the use was taken, and gives it back.
      const refused = await request({ issuer_did: issuer.did, offer_id: offerId, schema_id: 'schema-other' }, key)
      assert.equal(refused.statusCode, 400, refused.body)
      // An attribute of the wrong type, refused after the offer's use was taken too.
      const invalid = await request({ issuer_did: issuer.did, offer_id: offerId, attributes: { member_name: 42 } }, key)
      assert.equal(invalid.statusCode, 400, invalid.body)
      assert.equal(await usesOf(offerId), 0)
      assert.deepEqual(await ids('credential-requests'), before)

      // The one use is still there, and the key takes another body: nothing was recorded.
      const ok = await request({ issuer_did: issuer.did, offer_id: offerId }, key)
      assert.equal(ok.statusCode, 201, ok.body)
      assert.equal(await usesOf(offerId), 1)

      // Used up: 404, nothing stored, and that key too can be used again.
      const usedUpKey = newKey()
      const usedUp = await request({ issuer_did: issuer.did, offer_id: offerId }, usedUpKey)
      assert.equal(usedUp.statusCode, 404, usedUp.body)
      assert.equal(await usesOf(offerId), 1)
      assert.equal((await ids('credential-requests')).length, before.length + 1)
      const bySchema = await request(
        { issuer_did: issuer.did, schema_id: schemaId, credential_type: 'Membership' },
        usedUpKey,
      )
      assert.equal(bySchema.statusCode, 201, bySchema.body)
    })

    it('an offer addressed to another holder is refused without a trace', async () => {
      const offerId = await offer({ subject_did: verifier.did })
      const before = await ids('credential-requests')
      const res = await request({ issuer_did: issuer.did, offer_id: offerId }, newKey())
      assert.equal(res.statusCode, 404, res.body)
      assert.equal(await usesOf(offerId), 0)
      assert.deepEqual(await ids('credential-requests'), before)
    })
  })

  it('POST /api/wallet/:did/consents', async () => {
    await checkRoute({
      send: (body, key) => post(`/${holder.did}/consents`, body, key),
      body: (n) => ({ verifier_did: verifier.did, purpose: `Purpose ${n}` }),
      listing: 'consents',
      idOf: (answer) => answer.consent.id,
    })
  })

  describe('POST /api/wallet/:did/credentials/import', () => {
    const importJwt = (body: Json, key?: string) => post(`/${holder.did}/credentials/import`, body, key)
    const jwts = new Map<number, string>()
    const jwtFor = (n: number) => {
      if (!jwts.has(n))
        jwts.set(n, foreignCredential(external, { subject: holder.did, attributes: { given_name: `Ada ${n}` } }))
      return jwts.get(n)!
    }

    it('a retry answers the first 201 where a keyless repeat answers 409; another body 422; no key imports two', async () => {
      await checkRoute({
        send: importJwt,
        body: (n) => ({ credential_jwt: jwtFor(n) }),
        listing: 'credentials',
        idOf: (answer) => answer.credential.id,
      })
      // Without a key, the repeat of an import is refused as a duplicate (unchanged).
      const repeat = await importJwt({ credential_jwt: jwtFor(1) })
      assert.equal(repeat.statusCode, 409, repeat.body)
    })

    it('a retry of a restoring import answers it restored', async () => {
      const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
        credential_type: 'Membership',
        schema_id: schemaId,
        subject_did: holder.did,
        attributes: { member_name: 'R', level: 'gold' },
      })
      assert.equal(issued.statusCode, 201, issued.body)
      const { id, jwt } = issued.json().credential
      assert.equal(
        (await callAs(t.app, 'DELETE', `/api/wallet/${holder.did}/credentials/${id}`, token)).statusCode,
        200,
      )
      const key = newKey()
      const first = await importJwt({ credential_jwt: jwt }, key)
      assert.equal(first.statusCode, 201, first.body)
      assert.equal(first.json().restored, true)
      const again = await importJwt({ credential_jwt: jwt }, key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      assert.equal((await ids('credentials')).filter((c) => c === id).length, 1)
    })

    it('a refused import records nothing: the key can be used again', async () => {
      const key = newKey()
      const before = await ids('credentials')
      const foreign = foreignCredential(external, { subject: verifier.did })
      const refused = await importJwt({ credential_jwt: foreign }, key)
      assert.equal(refused.statusCode, 422, refused.body)
      assert.doesNotMatch(refused.json().message, /Idempotency-Key/)
      assert.deepEqual(await ids('credentials'), before)
      const ok = await importJwt({ credential_jwt: jwtFor(10) }, key)
      assert.equal(ok.statusCode, 201, ok.body)
    })
  })

  describe('POST /api/wallet/:did/credentials/share', () => {
    let credentialId: string
    before(async () => {
      const res = await post(`/${holder.did}/credentials/import`, {
        credential_jwt: foreignCredential(external, { subject: holder.did }),
      })
      assert.equal(res.statusCode, 201, res.body)
      credentialId = res.json().credential.id
    })
    const share = (body: Json, key?: string) => post(`/${holder.did}/credentials/share`, body, key)

    it('a retry answers the first 201, another body 422, no key creates two', async () => {
      await checkRoute({
        send: share,
        body: (n) => ({ credential_id: credentialId, purpose: `p${n}` }),
        listing: 'shares',
        idOf: (answer) => answer.share.id,
      })
    })

    it('the replayed link (its token shown once, sealed with the key) opens the credential', async () => {
      const key = newKey()
      const first = await share({ credential_id: credentialId, max_uses: 5 }, key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await share({ credential_id: credentialId, max_uses: 5 }, key)
      assert.equal(again.statusCode, 201, again.body)
      assert.equal(again.json().share.token, first.json().share.token)
      const opened = await t.app.inject({ method: 'GET', url: new URL(again.json().share.share_url).pathname })
      assert.equal(opened.statusCode, 200, opened.body)
      assert.equal(opened.json().credential.id, credentialId)
      assert.equal(opened.json().share.uses, 1)
    })

    it('a refused share records nothing: the key can be used again', async () => {
      const key = newKey()
      const before = await ids('shares')
      const refused = await share({ credential_id: 'aly:not-mine' }, key)
      assert.equal(refused.statusCode, 404, refused.body)
      assert.deepEqual(await ids('shares'), before)
      const ok = await share({ credential_id: credentialId }, key)
      assert.equal(ok.statusCode, 201, ok.body)
    })
  })

  describe('POST /api/wallet/:did/evidence/upload', () => {
    const upload = (parts: Part[], key?: string) => {
      const { payload, headers } = multipart(parts)
      return t.app.inject({
        method: 'POST',
        url: `/api/wallet/${holder.did}/evidence/upload`,
        headers: { ...headers, ...bearer(token), ...(key === undefined ? {} : { 'idempotency-key': key }) },
        payload,
      })
    }
    const text = (s: string): Part => ({
      name: 'file',
      filename: 'note.txt',
      contentType: 'text/plain',
      data: Buffer.from(s),
    })

    it('a retry answers the first 201, another body 422, no key uploads two', async () => {
      await checkRoute({
        send: (body, key) => upload([{ name: 'label', value: body.label }, body.file], key),
        // Each body differs in its label and its file's bytes.
        body: (n) => ({ label: `transcript ${n}`, file: text(`note ${n}`) }),
        listing: 'evidence',
        idOf: (answer) => answer.record.id,
      })
    })

    it('the same key with the same label and another file answers 422', async () => {
      const key = newKey()
      const first = await upload(
        [
          { name: 'label', value: 'transcript' },
          { name: 'file', filename: 'a.pdf', contentType: 'application/pdf', data: PDF_BYTES },
        ],
        key,
      )
      assert.equal(first.statusCode, 201, first.body)
      const count = (await ids('evidence')).length
      const changed = Buffer.concat([PDF_BYTES, Buffer.from('%% more\n')])
      const other = await upload(
        [
          { name: 'label', value: 'transcript' },
          { name: 'file', filename: 'a.pdf', contentType: 'application/pdf', data: changed },
        ],
        key,
      )
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal((await ids('evidence')).length, count)
    })

    it('a refused upload records nothing: the key can be used again', async () => {
      const key = newKey()
      const before = await ids('evidence')
      const refused = await upload(
        [
          { name: 'label', value: 'transcript' },
          { name: 'file', filename: 'a.pdf', contentType: 'application/pdf', data: Buffer.from('not a pdf') },
        ],
        key,
      )
      assert.equal(refused.statusCode, 415, refused.body)
      assert.deepEqual(await ids('evidence'), before)
      const ok = await upload([{ name: 'label', value: 'transcript' }, text('fine')], key)
      assert.equal(ok.statusCode, 201, ok.body)
    })
  })
})
