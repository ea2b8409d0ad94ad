/**
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header, docs/idempotency.md) on the hosted
 * wallet's OpenID4VCI and OpenID4VP steps, the chain anchoring writes (and their legacy names) and
 * key rotation. Real parts: the apps over inject() (two instances behind HTTPS fronts for the
 * hosted wallet, as in hosted-wallet-oid4vc.test.ts), the database per the runner; the chain is
 * the in-memory fake with its dispatcher stopped, so what is queued stays queued.
 * Resources are counted by listing routes or SQL, never by the code under test.
 */
import assert from 'node:assert/strict'
import { randomBytes, randomUUID, sign } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { bearer, DidClient } from '../helpers/did-client.js'
import { fakeChain } from '../helpers/fuzz/fake-chain.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeTwoInstances, openTwoInstances } from '../helpers/https-issuer.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { ADMIN_KEY, createTestApp, type TestApp } from '../helpers/test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const newKey = () => `"${randomUUID()}"`
const withKey = (key: string | undefined) => (key === undefined ? {} : { 'idempotency-key': key })

describe('Idempotency-Key on the hosted wallet (OpenID4VCI, OpenID4VP)', () => {
  let homeFront: HttpsFront
  let foreignFront: HttpsFront
  let home: TestApp
  let foreign: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  let holderToken: string
  let verifierToken: string
  let schemaId: string

  const SCHEMA = {
    name: 'Library card',
    version: '1',
    attributes: [{ name: 'given_name', data_type: 'string', required: true }],
    anonymous_credentials: false,
  }
  const signed = (signingInput: string, who = holder) =>
    `${signingInput}.${sign(null, Buffer.from(signingInput), who.privateKey).toString('base64url')}`
  const post = (app: FastifyInstance, url: string, payload: unknown, key?: string) =>
    app.inject({
      method: 'POST',
      url,
      headers: { ...bearer(holderToken), 'x-user-did': holder.did, ...withKey(key) },
      payload: payload as object,
    })
  const offer = async (body: Json = {}) => {
    const res = await callAs(foreign.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
      credential_type: 'LibraryCard',
      schema_id: schemaId,
      attributes: { given_name: 'Ada' },
      format: 'dc+sd-jwt',
      ...body,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }
  const accept = (body: Json, key?: string) => post(home.app, `/api/wallet/${holder.did}/offers/accept`, body, key)
  const complete = (sessionId: string, body: Json, key?: string) =>
    post(home.app, `/api/wallet/${holder.did}/offers/accept/${sessionId}`, body, key)
  const answer = (body: Json, key?: string) =>
    post(home.app, `/api/wallet/${holder.did}/presentation-requests/answer`, body, key)
  const send = (sessionId: string, body: Json, key?: string) =>
    post(home.app, `/api/wallet/${holder.did}/presentation-requests/answer/${sessionId}`, body, key)
  const verifierRequest = async () => {
    const res = await callAs(home.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'MemberCheck',
      // An SD-JWT VC type of another issuer is named by its vct (docs/openid4vp.md "DCQL mapping").
      required_credentials: [
        {
          credential_type: 'LibraryCard',
          schema_id: `${foreignFront.origin}/vct/${encodeURIComponent(schemaId)}`,
          required_attributes: ['given_name'],
        },
      ],
      purpose: 'Check the library card',
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }

  /** The holder's exchanges, by SQL. */
  const sessionCount = async (kind: 'oid4vci' | 'oid4vp') =>
    (
      await home.deps.database.db
        .selectFrom('wallet_protocol_sessions')
        .select('id')
        .where('holder_did', '=', holder.did)
        .where('kind', '=', kind)
        .execute()
    ).length
  /** The holder's wallet, by its listing route. */
  const walletIds = async (): Promise<string[]> => {
    const res = await home.app.inject({
      method: 'GET',
      url: `/api/wallet/${holder.did}/credentials?limit=200`,
      headers: { ...bearer(holderToken), 'x-user-did': holder.did },
    })
    assert.equal(res.statusCode, 200, res.body)
    return (res.json().data as Json[]).map((c) => c.id as string)
  }
  /** The holder's activity entries of a type, by the activity route. */
  const activities = async (type: string): Promise<number> => {
    const res = await home.app.inject({
      method: 'GET',
      url: `/api/wallet/${holder.did}/activities?type=${type}&limit=200`,
      headers: { ...bearer(holderToken), 'x-user-did': holder.did },
    })
    assert.equal(res.statusCode, 200, res.body)
    return (res.json().data as Json[]).length
  }
  /** How often the foreign issuer's offer was used (its offers listing). */
  const offerUses = async (offerId: string): Promise<number> => {
    const offers = (await callAs(foreign.app, 'GET', `/api/issuer/${issuer.did}/offers`, issuer.token)).json()
      .data as Json[]
    return offers.find((o) => o.id === offerId)!.uses as number
  }

  /** An offer accepted and completed without a key: a credential in the wallet to present. */
  const receive = async () => {
    const created = await offer()
    const prepared = (await accept({ offer_uri: created.credential_offer_uri })).json() as Json
    const done = await complete(prepared.session_id, { proof_jwt: signed(prepared.proof.signing_input) })
    assert.equal(done.statusCode, 201, done.body)
  }

  before(async () => {
    ;({ homeFront, foreignFront, home, foreign } = await openTwoInstances())
    await issuer.setUp(foreign.app, 'City library')
    schemaId = await issuer.schema(foreign.app, SCHEMA)
    holderToken = await holder.login(home.app)
    verifierToken = await verifier.login(home.app)
  })
  after(() => closeTwoInstances({ homeFront, foreignFront, home, foreign }))

  it('starting an acceptance: a retry answers the first 201 (one session; the spent offer is not read again); another body 422; no key starts one per call', async () => {
    const created = await offer({ tx_code: true })
    const body = { offer_uri: created.credential_offer_uri, tx_code: created.tx_code }
    const sessions = await sessionCount('oid4vci')
    const key = newKey()
    const first = await accept(body, key)
    assert.equal(first.statusCode, 201, first.body)
    const again = await accept(body, key)
    assert.equal(again.statusCode, 201, again.body)
    assert.deepEqual(again.json(), first.json())
    assert.equal(await sessionCount('oid4vci'), sessions + 1)

    const other = await accept({ ...body, credential_configuration_id: 'something-else' }, key)
    assert.equal(other.statusCode, 422, other.body)
    assert.match(other.json().message, /Idempotency-Key/)
    assert.equal(await sessionCount('oid4vci'), sessions + 1)

    // The replayed session is the one to complete: the holder signs its proof and gets the credential.
    const wallet = await walletIds()
    const done = await complete(again.json().session_id, { proof_jwt: signed(again.json().proof.signing_input) })
    assert.equal(done.statusCode, 201, done.body)
    assert.equal((await walletIds()).length, wallet.length + 1)

    // Without a key as before: the offer read is spent (a repeat is the issuer's 404), a new offer starts a new session.
    const spent = await accept(body)
    assert.equal(spent.statusCode, 422, spent.body)
    const a = await accept({ offer_uri: (await offer()).credential_offer_uri })
    const b = await accept({ offer_uri: (await offer()).credential_offer_uri })
    assert.equal(a.statusCode, 201, a.body)
    assert.equal(b.statusCode, 201, b.body)
    assert.notEqual(a.json().session_id, b.json().session_id)
    assert.equal(await sessionCount('oid4vci'), sessions + 3)
  })

  it('completing an acceptance: a retry answers the first 201 with the one credential kept; another body 422; a refused completion records nothing and its key is used again', async () => {
    const created = await offer()
    const prepared = (await accept({ offer_uri: created.credential_offer_uri })).json() as Json
    const input: string = prepared.proof.signing_input
    const wallet = await walletIds()
    const key = newKey()

    // Signed by another key: refused before the issuer is called; nothing recorded under the key.
    const refused = await complete(prepared.session_id, { proof_jwt: signed(input, verifier) }, key)
    assert.equal(refused.statusCode, 400, refused.body)

    const first = await complete(prepared.session_id, { proof_jwt: signed(input) }, key)
    assert.equal(first.statusCode, 201, first.body)
    const again = await complete(prepared.session_id, { proof_jwt: signed(input) }, key)
    assert.equal(again.statusCode, 201, again.body)
    assert.deepEqual(again.json(), first.json())
    const after = await walletIds()
    assert.equal(after.length, wallet.length + 1)
    assert.ok(after.includes(first.json().credentials[0].id))
    assert.equal(await offerUses(created.offer.id), 1, 'the issuer was asked once')

    const other = await complete(prepared.session_id, { proof_jwt: `${signed(input)}x` }, key)
    assert.equal(other.statusCode, 422, other.body)
    assert.match(other.json().message, /Idempotency-Key/)
    assert.equal((await walletIds()).length, wallet.length + 1)

    // Without a key the completion is single use, as before: the repeat finds no session.
    const unkeyed = await complete(prepared.session_id, { proof_jwt: signed(input) })
    assert.equal(unkeyed.statusCode, 404, unkeyed.body)
    // And two acceptances without keys keep two credentials.
    await receive()
    await receive()
    assert.equal((await walletIds()).length, wallet.length + 3)
  })

  it('preparing an OpenID4VP answer: a retry answers the first 201 (one session); another body 422; no key prepares one per call', async () => {
    await receive()
    const request = await verifierRequest()
    const body = { authorization_request_uri: request.authorization_request_uri }
    const sessions = await sessionCount('oid4vp')
    const key = newKey()
    const first = await answer(body, key)
    assert.equal(first.statusCode, 201, first.body)
    const again = await answer(body, key)
    assert.equal(again.statusCode, 201, again.body)
    assert.deepEqual(again.json(), first.json())
    assert.equal(await sessionCount('oid4vp'), sessions + 1)

    const otherRequest = await verifierRequest()
    const other = await answer({ authorization_request_uri: otherRequest.authorization_request_uri }, key)
    assert.equal(other.statusCode, 422, other.body)
    assert.match(other.json().message, /Idempotency-Key/)
    assert.equal(await sessionCount('oid4vp'), sessions + 1)

    assert.equal((await answer(body)).statusCode, 201)
    assert.equal((await answer(body)).statusCode, 201)
    assert.equal(await sessionCount('oid4vp'), sessions + 3)
  })

  it("sending an OpenID4VP answer: a retry answers the verifier's first verdict without sending again; another body 422; a refused send records nothing and its key is used again", async () => {
    await receive()
    const request = await verifierRequest()
    const prepared = (await answer({ authorization_request_uri: request.authorization_request_uri })).json() as Json
    const presentation = (prepared.presentations as Json[])[0]!
    const body = { signatures: { [presentation.query_id]: signed(presentation.to_sign.signing_input) } }
    const submitted = await activities('presentation_submitted')
    const key = newKey()

    const refused = await send(
      prepared.session_id,
      { signatures: { [presentation.query_id]: signed(presentation.to_sign.signing_input, verifier) } },
      key,
    )
    assert.equal(refused.statusCode, 400, refused.body)
    assert.equal(await activities('presentation_submitted'), submitted)

    const first = await send(prepared.session_id, body, key)
    assert.equal(first.statusCode, 200, first.body)
    assert.equal(first.json().accepted, true, first.body)
    const again = await send(prepared.session_id, body, key)
    assert.equal(again.statusCode, 200, again.body)
    assert.deepEqual(again.json(), first.json())
    assert.equal(await activities('presentation_submitted'), submitted + 1, 'the answer was sent once')
    const recorded = (
      await callAs(home.app, 'GET', `/api/verifier/requests/${request.request.id}`, verifierToken)
    ).json() as Json
    assert.equal(recorded.openid4vp.answer, 'accepted')

    const other = await send(
      prepared.session_id,
      { signatures: { [presentation.query_id]: `${body.signatures[presentation.query_id]}x` } },
      key,
    )
    assert.equal(other.statusCode, 422, other.body)
    assert.match(other.json().message, /Idempotency-Key/)
    // Without a key the answer is sent once, as before.
    assert.equal((await send(prepared.session_id, body)).statusCode, 404)
    assert.equal(await activities('presentation_submitted'), submitted + 1)
  })
})

describe('Idempotency-Key on the chain anchoring writes and their legacy names', () => {
  let t: TestApp
  const issuer = new DidClient()
  const holder = new DidClient()
  const verifier = new DidClient()
  let issuerToken: string
  let holderToken: string

  before(async () => {
    t = await createTestApp({ chain: fakeChain() })
    issuerToken = await issuer.login(t.app)
    holderToken = await holder.login(t.app)
    // Nothing is sent: the answers compare queued anchorings, which a mined batch would change.
    await t.app.chainDispatcher!.stop()
  })
  after(() => t.close())

  const hashHex = () => randomBytes(32).toString('hex')
  const post = (url: string, token: string, payload: unknown, key?: string) =>
    t.app.inject({ method: 'POST', url, headers: { ...bearer(token), ...withKey(key) }, payload: payload as object })
  const db = () => t.deps.database.db
  const leaves = async (issuerDid: string) =>
    (
      await db().selectFrom('chain_credentials').select('credential_hash').where('issuer_did', '=', issuerDid).execute()
    ).map((r) => r.credential_hash)
  const jobs = async (kind: 'schema' | 'consent-grant', subject?: string) => {
    let query = db().selectFrom('chain_jobs').select('id').where('kind', '=', kind)
    if (subject !== undefined) query = query.where('subject_id', '=', subject)
    return (await query.execute()).length
  }
  const consent = async (): Promise<string> => {
    const res = await post(`/api/wallet/${holder.did}/consents`, holderToken, {
      verifier_did: verifier.did,
      purpose: 'account opening',
      data_categories: ['email'],
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().consent.id as string
  }

  for (const route of [
    {
      url: '/api/blockchain/credential/register',
      body: (hash: string) => ({ issuer_did: issuer.did, credential_hash: hash }),
    },
    {
      url: '/api/blockchain-legacy/register-credential',
      body: (hash: string) => ({ issuerDid: issuer.did, credentialHash: hash }),
    },
  ]) {
    it(`${route.url}: a retry answers the first 201; another body 422 and nothing queued; without a key a repeat queues the hash once, as before`, async () => {
      const hash = hashHex()
      const key = newKey()
      const first = await post(route.url, issuerToken, route.body(hash), key)
      assert.equal(first.statusCode, 201, first.body)
      assert.equal(first.json().data.anchoring, 'queued')
      const again = await post(route.url, issuerToken, route.body(hash), key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      assert.equal((await leaves(issuer.did)).filter((h) => h === hash).length, 1)

      const otherHash = hashHex()
      const other = await post(route.url, issuerToken, route.body(otherHash), key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.ok(!(await leaves(issuer.did)).includes(otherHash), 'the other hash was not queued')

      const plain = hashHex()
      assert.equal((await post(route.url, issuerToken, route.body(plain))).statusCode, 201)
      assert.equal((await post(route.url, issuerToken, route.body(plain))).statusCode, 201)
      assert.equal((await leaves(issuer.did)).filter((h) => h === plain).length, 1)
    })
  }

  for (const route of [
    {
      url: '/api/blockchain/schema/register',
      body: (id: string, hash: string) => ({ issuer_did: issuer.did, schema_id: id, schema_hash: hash }),
    },
    {
      url: '/api/blockchain-legacy/register-schema',
      body: (id: string, hash: string) => ({ issuerDid: issuer.did, schemaId: id, schemaHash: hash }),
    },
  ]) {
    it(`${route.url}: a retry answers the first 201 and queues one chain transaction; another body 422; without a key each call queues one`, async () => {
      const schemaId = `schema-${randomUUID()}`
      const hash = hashHex()
      const key = newKey()
      const first = await post(route.url, issuerToken, route.body(schemaId, hash), key)
      assert.equal(first.statusCode, 201, first.body)
      const again = await post(route.url, issuerToken, route.body(schemaId, hash), key)
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(again.json(), first.json())
      assert.equal(await jobs('schema', schemaId), 1)

      const other = await post(route.url, issuerToken, route.body(schemaId, hashHex()), key)
      assert.equal(other.statusCode, 422, other.body)
      assert.match(other.json().message, /Idempotency-Key/)
      assert.equal(await jobs('schema', schemaId), 1)

      const plain = `schema-${randomUUID()}`
      assert.equal((await post(route.url, issuerToken, route.body(plain, hash))).statusCode, 201)
      assert.equal((await post(route.url, issuerToken, route.body(plain, hash))).statusCode, 201)
      assert.equal(await jobs('schema', plain), 2)
    })
  }

  it('/api/blockchain/consent/grant: a retry answers the first 201 and queues one grant for the consent; another body 422; without a key each call queues one', async () => {
    const consentId = await consent()
    const body = { user_did: holder.did, verifier_did: verifier.did, purpose: 'account opening', consent_id: consentId }
    const queued = await jobs('consent-grant', consentId)
    const key = newKey()
    const first = await post('/api/blockchain/consent/grant', holderToken, body, key)
    assert.equal(first.statusCode, 201, first.body)
    const again = await post('/api/blockchain/consent/grant', holderToken, body, key)
    assert.equal(again.statusCode, 201, again.body)
    assert.deepEqual(again.json(), first.json())
    assert.equal(await jobs('consent-grant', consentId), queued + 1)

    const other = await post('/api/blockchain/consent/grant', holderToken, { ...body, purpose: 'another purpose' }, key)
    assert.equal(other.statusCode, 422, other.body)
    assert.match(other.json().message, /Idempotency-Key/)
    assert.equal(await jobs('consent-grant', consentId), queued + 1)

    assert.equal((await post('/api/blockchain/consent/grant', holderToken, body)).statusCode, 201)
    assert.equal((await post('/api/blockchain/consent/grant', holderToken, body)).statusCode, 201)
    assert.equal(await jobs('consent-grant', consentId), queued + 3)
  })

  it('/api/blockchain-legacy/grant-consent: a retry answers the first 201 and queues one grant; another body 422; a refused grant records nothing and its key is used again', async () => {
    const purpose = `purpose ${randomUUID()}`
    const body = { userDid: holder.did, verifierDid: verifier.did, purpose, expiresAt: '2030-01-01T00:00:00Z' }
    const before = await jobs('consent-grant')
    const key = newKey()
    // Another holder's DID in the body: 403, nothing queued, the key still free.
    const refused = await post(
      '/api/blockchain-legacy/grant-consent',
      holderToken,
      { ...body, userDid: issuer.did },
      key,
    )
    assert.equal(refused.statusCode, 403, refused.body)
    assert.equal(await jobs('consent-grant'), before)

    const first = await post('/api/blockchain-legacy/grant-consent', holderToken, body, key)
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(first.json().data.purpose, purpose)
    const again = await post('/api/blockchain-legacy/grant-consent', holderToken, body, key)
    assert.deepEqual(again.json(), first.json())
    assert.equal(again.statusCode, 201)
    assert.equal(await jobs('consent-grant'), before + 1)

    const other = await post(
      '/api/blockchain-legacy/grant-consent',
      holderToken,
      { ...body, expiresAt: '2031-01-01T00:00:00Z' },
      key,
    )
    assert.equal(other.statusCode, 422, other.body)
    assert.equal(await jobs('consent-grant'), before + 1)
  })
})

describe('Idempotency-Key on POST /api/admin/keys/rotate', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())

  const admin = { 'x-admin-key': ADMIN_KEY }
  const rotate = (payload: object, key?: string) =>
    t.app.inject({ method: 'POST', url: '/api/admin/keys/rotate', headers: { ...admin, ...withKey(key) }, payload })
  const keys = async (purpose: string): Promise<Json[]> => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/admin/keys?owner=service&purpose=${purpose}`,
      headers: admin,
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().keys as Json[]
  }

  it('a retry answers the first rotation and retires nothing more; another body 422; without a key each call rotates', async () => {
    const purpose = `test-${randomUUID().slice(0, 8)}`
    assert.equal((await rotate({ purpose })).statusCode, 200)
    const before = await keys(purpose)
    assert.equal(before.length, 1)
    const key = newKey()
    const first = await rotate({ purpose }, key)
    assert.equal(first.statusCode, 200, first.body)
    assert.equal(first.json().retired.kid, before[0]!.kid)
    const again = await rotate({ purpose }, key)
    assert.equal(again.statusCode, 200, again.body)
    assert.deepEqual(again.json(), first.json())
    const after = await keys(purpose)
    assert.equal(after.length, 2)
    assert.deepEqual(
      after.filter((k) => k.status === 'active').map((k) => k.kid),
      [first.json().active.kid],
    )

    const other = await rotate({ purpose: `${purpose}-other` }, key)
    assert.equal(other.statusCode, 422, other.body)
    assert.match(other.json().message, /Idempotency-Key/)
    assert.equal((await keys(`${purpose}-other`)).length, 0)

    assert.equal((await rotate({ purpose })).statusCode, 200)
    assert.equal((await rotate({ purpose })).statusCode, 200)
    assert.equal((await keys(purpose)).filter((k) => k.status === 'retired').length, 3)
  })
})
