/**
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header, docs/idempotency.md) on the issuer's
 * creating POSTs: profile, schemas, templates, offers, request approval, VC API clients and VC API
 * issue. For each: a retry answers the first answer and one resource exists (counted by a listing
 * or SQL, not by the code under test); another body is 422 and creates nothing; no key keeps the
 * old behaviour; a refused request records nothing, so its key can be used again. What the first
 * answer showed once (an offer's tx_code and URI, a client secret) is replayed and still works.
 *
 * Real: the whole app on the engine under test behind an HTTPS front (OpenID4VCI is served on
 * https only); the offer is redeemed by a standard wallet built on @openid4vc/* (test/helpers/oid4vc-wallet).
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeHttpsIssuer, openHttpsIssuer } from '../helpers/https-issuer.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { IssuanceWallet } from '../helpers/oid4vc-wallet/issuance-wallet.js'
import type { TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'
import { basicAuth, createClient, pathOf, tokenRequest, VC_V2, type Json } from '../helpers/vc-api.js'

const SCHEMA = {
  name: 'Membership',
  version: '1',
  attributes: [
    { name: 'member', data_type: 'string', required: true },
    { name: 'level', data_type: 'number' },
  ],
  anonymous_credentials: false,
}

const newKey = () => `"${randomUUID()}"`

describe(`Idempotency-Key on the issuer's creating POSTs (${TEST_ENGINE})`, () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const stranger = new DidClient()
  let holderToken: string
  let schemaId: string

  before(async () => {
    ;({ front, t, schemaId } = await openHttpsIssuer(issuer, 'Club', SCHEMA))
    holderToken = await holder.login(t.app)
  })
  after(() => closeHttpsIssuer({ front, t }))

  const post = (url: string, token: string, payload: unknown, key?: string): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { ...bearer(token), ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload: payload as object,
    })
  /** The ids a listing route of the issuer shows (the issuer's own view, not the code under test). */
  const listed = async (
    what: 'schemas' | 'templates' | 'offers' | 'credentials' | 'vc-api/clients',
    actor = issuer,
  ): Promise<string[]> => {
    const res = await callAs(
      t.app,
      'GET',
      `/api/issuer/${actor.did}/${what}${what === 'vc-api/clients' ? '' : '?limit=200'}`,
      actor.token,
    )
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    return what === 'vc-api/clients' ? body.clients.map((c: Json) => c.client_id) : body.data.map((r: Json) => r.id)
  }
  /** Idempotency records of a caller, by SQL: a refused request must leave none. */
  const keyRecords = async (caller: string) =>
    (
      await t.deps.database.db.selectFrom('idempotency_keys').select('key').where('caller_did', '=', caller).execute()
    ).map((r) => r.key)

  describe('POST /api/issuer', () => {
    const profiles = async (did: string) =>
      (await t.deps.database.db.selectFrom('issuers').select('did').where('did', '=', did).execute()).length

    it('a retry with the key answers the first 201 (not 409), and one profile exists', async () => {
      const actor = new IssuerActor()
      actor.token = await actor.login(t.app)
      const key = newKey()
      const first = await post('/api/issuer', actor.token, { name: 'Retry Uni' }, key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await post('/api/issuer', actor.token, { name: 'Retry Uni' }, key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      assert.equal(await profiles(actor.did), 1)
      // The same key with another body: 422, and the profile keeps its first name.
      const other = await post('/api/issuer', actor.token, { name: 'Other Uni' }, key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal(
        (await callAs(t.app, 'GET', `/api/issuer/${actor.did}`, actor.token)).json().issuer.name,
        'Retry Uni',
      )
    })

    it('without a key a repeat still answers 409; a 409 with a key records nothing, so it answers 409 again', async () => {
      const actor = new IssuerActor()
      actor.token = await actor.login(t.app)
      assert.equal((await post('/api/issuer', actor.token, { name: 'Plain Uni' })).statusCode, 201)
      assert.equal((await post('/api/issuer', actor.token, { name: 'Plain Uni' })).statusCode, 409)
      const key = newKey()
      for (let i = 0; i < 2; i++) {
        const refused = await post('/api/issuer', actor.token, { name: 'Plain Uni' }, key)
        assert.equal(refused.statusCode, 409, refused.body)
      }
      assert.deepEqual(await keyRecords(actor.did), [])
      assert.equal(await profiles(actor.did), 1)
    })

    it('a refused request (403) leaves its key free', async () => {
      const actor = new IssuerActor()
      actor.token = await actor.login(t.app)
      const key = newKey()
      assert.equal((await post('/api/issuer', actor.token, { name: 'Uni', did: stranger.did }, key)).statusCode, 403)
      assert.equal(await profiles(actor.did), 0)
      const ok = await post('/api/issuer', actor.token, { name: 'Uni' }, key)
      assert.equal(ok.statusCode, 201, ok.body)
    })
  })

  describe('POST /api/issuer/:did/schemas', () => {
    const url = () => `/api/issuer/${issuer.did}/schemas`
    const schema = (version: string) => ({ ...SCHEMA, name: 'Keyed', version })

    it('a retry answers the first 201 and one schema exists; another body is 422 and creates nothing', async () => {
      const before = await listed('schemas')
      const key = newKey()
      const first = await post(url(), issuer.token, schema('1'), key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await post(url(), issuer.token, schema('1'), key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      const after = await listed('schemas')
      assert.equal(after.length, before.length + 1)
      assert.ok(after.includes(first.json().schema.id))
      const other = await post(url(), issuer.token, schema('2'), key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal((await listed('schemas')).length, after.length)
    })

    it('without a key two requests create two schemas, and an equal name and version still answers 409', async () => {
      const before = await listed('schemas')
      assert.equal((await post(url(), issuer.token, schema('nokey-1'))).statusCode, 201)
      assert.equal((await post(url(), issuer.token, schema('nokey-2'))).statusCode, 201)
      assert.equal((await post(url(), issuer.token, schema('nokey-2'))).statusCode, 409)
      assert.equal((await listed('schemas')).length, before.length + 2)
    })

    it("a 409 (name and version taken, refused in the claim's transaction) records nothing: the key then creates", async () => {
      assert.equal((await post(url(), issuer.token, schema('taken'))).statusCode, 201)
      const before = await listed('schemas')
      const records = (await keyRecords(issuer.did)).length
      const key = newKey()
      const refused = await post(url(), issuer.token, schema('taken'), key)
      assert.equal(refused.statusCode, 409, refused.body)
      assert.equal((await listed('schemas')).length, before.length)
      assert.equal((await keyRecords(issuer.did)).length, records)
      const ok = await post(url(), issuer.token, schema('taken-2'), key)
      assert.equal(ok.statusCode, 201, ok.body)
    })
  })

  describe('POST /api/issuer/:did/templates', () => {
    const url = () => `/api/issuer/${issuer.did}/templates`
    const template = (name: string, id = schemaId) => ({
      name,
      credential_type: 'Membership',
      schema_id: id,
      fixed_attributes: { level: 2 },
    })

    it('a retry answers the first 201 and one template exists; another body is 422 and creates nothing', async () => {
      const before = await listed('templates')
      const key = newKey()
      const first = await post(url(), issuer.token, template('Gold'), key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await post(url(), issuer.token, template('Gold'), key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      const after = await listed('templates')
      assert.equal(after.length, before.length + 1)
      assert.ok(after.includes(first.json().template.id))
      const other = await post(url(), issuer.token, template('Silver'), key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal((await listed('templates')).length, after.length)
    })

    it('without a key two equal requests create two templates', async () => {
      const before = await listed('templates')
      const a = await post(url(), issuer.token, template('Twice'))
      const b = await post(url(), issuer.token, template('Twice'))
      assert.equal(a.statusCode, 201, a.body)
      assert.equal(b.statusCode, 201, b.body)
      assert.notEqual(a.json().template.id, b.json().template.id)
      assert.equal((await listed('templates')).length, before.length + 2)
    })

    it('a refused request (unknown schema) records nothing: its key then creates', async () => {
      const before = await listed('templates')
      const key = newKey()
      const refused = await post(url(), issuer.token, template('Bad', 'schema-unknown'), key)
      assert.ok(refused.statusCode >= 400 && refused.statusCode < 500 && refused.statusCode !== 422, refused.body)
      assert.equal((await listed('templates')).length, before.length)
      assert.equal((await post(url(), issuer.token, template('Good'), key)).statusCode, 201)
    })
  })

  describe('POST /api/issuer/:did/offers (OpenID4VCI publication)', () => {
    const url = () => `/api/issuer/${issuer.did}/offers`
    const offer = (extra: Json = {}) => ({
      credential_type: 'Membership',
      schema_id: schemaId,
      attributes: { member: 'Ada', level: 3 },
      format: 'dc+sd-jwt',
      tx_code: true,
      ...extra,
    })

    it('a retry answers the first 201, tx_code and offer URI included, and one offer exists; the replayed tx_code redeems the code', async () => {
      const before = await listed('offers')
      const key = newKey()
      const first = await post(url(), issuer.token, offer(), key)
      assert.equal(first.statusCode, 201, first.body)
      assert.match(first.json().tx_code, /^\d{6}$/)
      const again = await post(url(), issuer.token, offer(), key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      const after = await listed('offers')
      assert.equal(after.length, before.length + 1)
      assert.ok(after.includes(first.json().offer.id))
      // The wallet takes the replayed offer URI and tx_code to the OpenID4VCI token endpoint.
      const wallet = await IssuanceWallet.create(['ES256'])
      const resolved = await wallet.resolve(again.json().credential_offer_uri)
      const token = await wallet.token(resolved, { dpop: false, txCode: again.json().tx_code })
      assert.ok(token.accessToken)
      // The use was taken from the offer the key created.
      const listedOffer = (await callAs(t.app, 'GET', `${url()}?limit=200`, issuer.token))
        .json()
        .data.find((o: Json) => o.id === first.json().offer.id)
      assert.equal(listedOffer.uses, 1)
    })

    it('duplicates sent to two instances on one database create one offer, and both answer its one tx_code', async () => {
      // The second instance's in-flight set does not know the first's: only the key's record,
      // claimed in the offer's transaction, can tell; the loser answers from the sealed secret.
      const second = await buildApp(t.config, {
        ...t.deps,
        database: { ...t.deps.database, close: async () => undefined },
      })
      await second.ready()
      try {
        const before = await listed('offers')
        const key = newKey()
        const send = (app: typeof second) =>
          app.inject({
            method: 'POST',
            url: url(),
            headers: { ...bearer(issuer.token), 'idempotency-key': key },
            payload: offer(),
          })
        const answers = await Promise.all([send(t.app), send(second), send(t.app), send(second)])
        for (const r of answers) assert.ok(r.statusCode === 201 || r.statusCode === 409, `${r.statusCode} ${r.body}`)
        const created = answers.filter((r) => r.statusCode === 201)
        assert.ok(created.length >= 2, answers.map((r) => r.statusCode).join(','))
        for (const r of created) assert.deepEqual(r.json(), created[0]!.json())
        assert.equal((await listed('offers')).length, before.length + 1)
      } finally {
        await second.close()
      }
    })

    it('another body with the key is 422 and creates nothing', async () => {
      const key = newKey()
      assert.equal((await post(url(), issuer.token, offer(), key)).statusCode, 201)
      const count = (await listed('offers')).length
      const other = await post(url(), issuer.token, offer({ attributes: { member: 'Grace', level: 3 } }), key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal((await listed('offers')).length, count)
    })

    it('without a key two equal requests create two offers, each with its own code', async () => {
      const before = await listed('offers')
      const a = await post(url(), issuer.token, offer())
      const b = await post(url(), issuer.token, offer())
      assert.equal(a.statusCode, 201, a.body)
      assert.equal(b.statusCode, 201, b.body)
      assert.notEqual(a.json().offer.id, b.json().offer.id)
      assert.notEqual(a.json().credential_offer_uri, b.json().credential_offer_uri)
      assert.equal((await listed('offers')).length, before.length + 2)
    })

    it('an offer without an OpenID4VCI publication replays too', async () => {
      const key = newKey()
      // vc+jwt has no OpenID4VCI credential configuration: the spec's offer alone, nothing sealed.
      const body = {
        credential_type: 'Membership',
        schema_id: schemaId,
        attributes: { member: 'Ada' },
        format: 'vc+jwt',
      }
      const first = await post(url(), issuer.token, body, key)
      assert.equal(first.statusCode, 201, first.body)
      assert.equal(first.json().credential_offer_uri, undefined)
      const again = await post(url(), issuer.token, body, key)
      assert.deepEqual(again.json(), first.json())
    })

    it('a refused request (unknown schema) records nothing: its key then creates', async () => {
      const before = await listed('offers')
      const key = newKey()
      assert.equal((await post(url(), issuer.token, offer({ schema_id: 'schema-unknown' }), key)).statusCode, 400)
      assert.equal((await listed('offers')).length, before.length)
      assert.equal((await post(url(), issuer.token, offer(), key)).statusCode, 201)
    })
  })

  describe('POST /api/wallet/issuer/:issuer_did/request/:request_id/approve', () => {
    const newRequest = async (): Promise<string> => {
      const res = await callAs(t.app, 'POST', '/api/wallet/credential-request', holderToken, {
        issuer_did: issuer.did,
        schema_id: schemaId,
        credential_type: 'Membership',
        attributes: { member: 'Ada' },
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().request.id
    }
    const base = (id: string) => `/api/wallet/issuer/${issuer.did}/request/${id}`
    const signedChallenge = async (id: string, signer: DidClient = issuer) => {
      const ch = await callAs(t.app, 'GET', `${base(id)}/challenge`, issuer.token)
      assert.equal(ch.statusCode, 200, ch.body)
      return signer.sign(ch.json().challenge)
    }
    const status = async (id: string) => {
      const res = await callAs(t.app, 'GET', `/api/wallet/${holder.did}/credential-requests?limit=200`, holderToken)
      return res.json().data.find((r: Json) => r.id === id).status
    }

    it('a retry answers the first 200 and one credential was issued; another body is 422 and issues nothing', async () => {
      const id = await newRequest()
      const before = await listed('credentials')
      const key = newKey()
      const body = { signature: await signedChallenge(id), attributes: { level: 4 } }
      const first = await post(`${base(id)}/approve`, issuer.token, body, key)
      assert.equal(first.statusCode, 200, first.body)
      const again = await post(`${base(id)}/approve`, issuer.token, body, key)
      assert.equal(again.statusCode, 200, again.body)
      assert.deepEqual(again.json(), first.json())
      const after = await listed('credentials')
      assert.equal(after.length, before.length + 1)
      assert.ok(after.includes(first.json().credential.id))
      assert.equal(await status(id), 'approved')
      const other = await post(`${base(id)}/approve`, issuer.token, { ...body, attributes: { level: 5 } }, key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal((await listed('credentials')).length, after.length)
    })

    it('without a key two approvals issue two credentials, and approving again still answers 409', async () => {
      const ids = [await newRequest(), await newRequest()]
      const before = await listed('credentials')
      const answers = []
      for (const id of ids)
        answers.push(await post(`${base(id)}/approve`, issuer.token, { signature: await signedChallenge(id) }))
      for (const a of answers) assert.equal(a.statusCode, 200, a.body)
      assert.notEqual(answers[0]!.json().credential.id, answers[1]!.json().credential.id)
      assert.equal((await listed('credentials')).length, before.length + 2)
      const ch = await issuer.challenge(t.app, issuer.did, 'step-up')
      assert.equal(
        (await post(`${base(ids[0]!)}/approve`, issuer.token, { signature: issuer.sign(ch), challenge: ch }))
          .statusCode,
        409,
      )
    })

    it('a refused approval (wrong signature) issues nothing and records nothing: its key then approves', async () => {
      const id = await newRequest()
      const before = await listed('credentials')
      const records = (await keyRecords(issuer.did)).length
      const key = newKey()
      const refused = await post(
        `${base(id)}/approve`,
        issuer.token,
        { signature: await signedChallenge(id, stranger) },
        key,
      )
      assert.equal(refused.statusCode, 401, refused.body)
      assert.equal((await listed('credentials')).length, before.length)
      assert.equal((await keyRecords(issuer.did)).length, records)
      assert.equal(await status(id), 'pending')
      const ok = await post(`${base(id)}/approve`, issuer.token, { signature: await signedChallenge(id) }, key)
      assert.equal(ok.statusCode, 200, ok.body)
      assert.equal(await status(id), 'approved')
    })
  })

  describe('POST /api/issuer/:did/vc-api/clients', () => {
    const url = () => `/api/issuer/${issuer.did}/vc-api/clients`

    it('a retry answers the first 201, its secret included, and one client exists; the replayed secret obtains a token', async () => {
      const before = await listed('vc-api/clients')
      const key = newKey()
      const first = await post(url(), issuer.token, { name: 'Pipeline' }, key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await post(url(), issuer.token, { name: 'Pipeline' }, key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      const after = await listed('vc-api/clients')
      assert.equal(after.length, before.length + 1)
      assert.ok(after.includes(first.json().client.client_id))
      const { client_id, client_secret } = again.json().client
      const token = await tokenRequest(t.app, { grant_type: 'client_credentials' }, basicAuth(client_id, client_secret))
      assert.equal(token.statusCode, 200, token.body)
      assert.ok(token.json().access_token)
    })

    it('another body with the key is 422 and creates nothing; without a key two requests create two clients', async () => {
      const key = newKey()
      assert.equal((await post(url(), issuer.token, { name: 'One' }, key)).statusCode, 201)
      const count = (await listed('vc-api/clients')).length
      const other = await post(url(), issuer.token, { name: 'Two' }, key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal((await listed('vc-api/clients')).length, count)
      const a = await post(url(), issuer.token, { name: 'Twice' })
      const b = await post(url(), issuer.token, { name: 'Twice' })
      assert.equal(a.statusCode, 201, a.body)
      assert.equal(b.statusCode, 201, b.body)
      assert.notEqual(a.json().client.client_secret, b.json().client.client_secret)
      assert.equal((await listed('vc-api/clients')).length, count + 2)
    })
  })

  describe('POST /vc-api/issuers/:issuer_id/:format/credentials/issue (keyed to the OAuth client)', () => {
    const vcIssuer = new IssuerActor()
    let signingDid: string
    let issueUrl: string
    const tokens: string[] = []
    const credential = (id = `urn:uuid:${randomUUID()}`, name = 'Ada Lovelace') => ({
      '@context': [VC_V2],
      id,
      type: ['VerifiableCredential'],
      issuer: signingDid,
      validFrom: '2026-01-01T00:00:00Z',
      credentialSubject: { id: 'did:example:ebfeb1f712ebc6f1c276e12ec21', name },
    })
    const stored = async () =>
      (
        await t.deps.database.db
          .selectFrom('vc_api_credentials')
          .select('id')
          .where('issuer_did', '=', vcIssuer.did)
          .execute()
      ).length
    const issue = (body: Json, key?: string, token = tokens[0]!) => post(pathOf(issueUrl), token, body, key)

    before(async () => {
      vcIssuer.token = await vcIssuer.login(t.app)
      assert.equal(
        (await callAs(t.app, 'POST', '/api/issuer', vcIssuer.token, { name: 'Key Uni', signing_did_method: 'key' }))
          .statusCode,
        201,
      )
      const signing = (await callAs(t.app, 'GET', `/api/issuer/${vcIssuer.did}/signing`, vcIssuer.token)).json()
      signingDid = signing.signing_dids.find((d: Json) => d.current && d.key_type === 'Ed25519').did
      for (const name of ['first', 'second']) {
        const client = await createClient(t.app, vcIssuer, name)
        issueUrl = client.endpoints.issue['eddsa-jcs-2022']!
        const res = await tokenRequest(
          t.app,
          { grant_type: 'client_credentials' },
          basicAuth(client.client_id, client.client_secret),
        )
        assert.equal(res.statusCode, 200, res.body)
        tokens.push(res.json().access_token)
      }
    })

    it('a retry answers the first 201 and one credential was stored; another body is 422 and stores nothing', async () => {
      const before = await stored()
      const key = newKey()
      const body = { credential: credential() }
      const first = await issue(body, key)
      assert.equal(first.statusCode, 201, first.body)
      assert.ok(first.json().proof, 'a Data Integrity proof')
      const again = await issue(body, key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      assert.equal(await stored(), before + 1)
      const other = await issue({ credential: credential(undefined, 'Grace Hopper') }, key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal(await stored(), before + 1)
    })

    it("the key is the client's: another client of the same issuer with that key issues anew", async () => {
      const before = await stored()
      const key = newKey()
      const body = { credential: credential() }
      const mine = await issue(body, key, tokens[0])
      const theirs = await issue(body, key, tokens[1])
      assert.equal(mine.statusCode, 201, mine.body)
      assert.equal(theirs.statusCode, 201, theirs.body)
      assert.equal(await stored(), before + 2)
    })

    it('without a key two equal requests store two credentials', async () => {
      const before = await stored()
      const body = { credential: credential() }
      assert.equal((await issue(body)).statusCode, 201)
      assert.equal((await issue(body)).statusCode, 201)
      assert.equal(await stored(), before + 2)
    })

    it('a refused request (an id already issued with a status entry: 409) records nothing: its key then issues', async () => {
      const taken = `urn:uuid:${randomUUID()}`
      const options = { credentialStatus: { type: 'BitstringStatusListEntry' } }
      assert.equal((await issue({ credential: credential(taken), options })).statusCode, 201)
      const before = await stored()
      const key = newKey()
      const refused = await issue({ credential: credential(taken), options }, key)
      assert.equal(refused.statusCode, 409, refused.body)
      assert.equal(await stored(), before)
      const ok = await issue({ credential: credential(), options }, key)
      assert.equal(ok.statusCode, 201, ok.body)
      assert.equal(await stored(), before + 1)
    })
  })
})
