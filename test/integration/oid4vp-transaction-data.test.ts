/**
 * transaction_data (OpenID4VP 1.0 §5.1, §8.4, Appendix B.3.3): a request carries items the holder
 * authorizes, base64url-encoded JSON naming the credential queries that may authorize them; the
 * SD-JWT VC's KB-JWT must carry each item's hash in transaction_data_hashes. A wallet written with
 * jose, fetch, node:crypto and @sd-jwt/sd-jwt-vc (test/helpers/oid4vc-wallet/x509-wallet.ts)
 * hashes the items as it received them; missing or wrong hashes are refused without consuming
 * the request, and the right ones are then accepted.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { generateWalletKey, type WalletKey } from '../helpers/oid4vc-wallet/wallet-keys.js'
import {
  fetchRequestObject,
  postResponse,
  presentSdJwt,
  readAuthorizationUri,
  verifyX509Request,
} from '../helpers/oid4vc-wallet/x509-wallet.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const ASKED = ['given_name']
const PAYMENT = { type: 'urn:example:payment', amount: '42.00', currency: 'EUR', payee: 'Shop' }
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url')

describe('OpenID4VP transaction_data and the KB-JWT transaction_data_hashes', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  const verifier = new DidClient()
  let verifierToken: string
  let key: WalletKey
  let sdJwt: string

  const createRequest = (body: Json) =>
    callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'Payment',
      required_credentials: [{ credential_type: 'Identity', required_attributes: ASKED, format: 'dc+sd-jwt' }],
      purpose: 'Confirm the payment',
      client_id_prefix: 'x509_hash',
      ...body,
    })
  /** The request as the wallet reads it: fetched, verified with x5c, the client id checked. */
  const open = async (body: Json) => {
    const res = await createRequest(body)
    assert.equal(res.statusCode, 201, res.body)
    const created = res.json() as Json
    const uri = readAuthorizationUri(created.authorization_request_uri)
    const payload = (await verifyX509Request((await fetchRequestObject(uri.requestUri)).text, uri.clientId)) as Json
    return { created, payload, clientId: uri.clientId }
  }
  const answer = (opened: { payload: Json; clientId: string }, extra?: Json) =>
    presentSdJwt(key, sdJwt, ASKED, { aud: opened.clientId, nonce: opened.payload.nonce, extra }).then((vp) =>
      postResponse(
        opened.payload.response_uri,
        { [opened.payload.dcql_query.credentials[0].id]: [vp] },
        opened.payload.state,
      ),
    )
  const view = async (id: string) =>
    (await callAs(t.app, 'GET', `/api/verifier/requests/${id}`, verifierToken)).json() as Json

  before(async () => {
    front = await HttpsFront.open()
    t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin } })
    front.serve(t.app)
    await issuer.setUp(t.app, 'Registry')
    const schemaId = await issuer.schema(t.app, {
      name: 'Identity',
      version: '1.0',
      attributes: [{ name: 'given_name', data_type: 'string', required: true }],
      anonymous_credentials: false,
    })
    verifierToken = await verifier.login(t.app)
    key = await generateWalletKey('ES256')
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Identity',
      schema_id: schemaId,
      subject_did: key.did,
      attributes: { given_name: 'Erika' },
      format: 'dc+sd-jwt',
    })
    assert.equal(res.statusCode, 201, res.body)
    sdJwt = res.json().credential.jwt
  })
  after(async () => {
    await t.close()
    await front.close()
  })

  it('the request object carries each item base64url-encoded, naming the credential queries; the KB-JWT with its hash is accepted', async () => {
    const opened = await open({ transaction_data: [PAYMENT] })
    const [encoded] = opened.payload.transaction_data as string[]
    const item = JSON.parse(Buffer.from(encoded!, 'base64url').toString('utf8'))
    assert.deepEqual(item, { ...PAYMENT, credential_ids: [opened.payload.dcql_query.credentials[0].id] })
    const result = await answer(opened, {
      transaction_data_hashes: [sha256(encoded!)],
      transaction_data_hashes_alg: 'sha-256',
    })
    assert.equal(result.status, 200, JSON.stringify(result.body))
    assert.equal((await view(opened.created.request.id)).request.status, 'verified')
  })

  it('missing or wrong transaction_data_hashes are refused and consume nothing; the right ones are then accepted', async () => {
    const opened = await open({ transaction_data: [PAYMENT, { type: 'urn:example:consent', text: 'I agree' }] })
    const encoded = opened.payload.transaction_data as string[]
    const attempts: Array<Json | undefined> = [
      undefined,
      { transaction_data_hashes: [] },
      { transaction_data_hashes: [sha256(encoded[0]!)] },
      // The hash of the decoded JSON, not of the string as received.
      { transaction_data_hashes: encoded.map((e) => sha256(Buffer.from(e, 'base64url').toString('utf8'))) },
      { transaction_data_hashes: encoded.map((e) => sha256(e)), transaction_data_hashes_alg: 'sha-512' },
    ]
    for (const extra of attempts) {
      const refused = await answer(opened, extra)
      assert.equal(refused.status, 400, JSON.stringify(refused.body))
      assert.equal(refused.body.error, 'access_denied')
      assert.match(String(refused.body.error_description), /transaction_data/)
    }
    const seen = await view(opened.created.request.id)
    assert.equal(seen.request.status, 'pending')
    assert.equal(seen.openid4vp.answer, null)
    assert.equal(seen.openid4vp.refused_attempts.count, attempts.length)
    assert.equal(seen.openid4vp.refused_attempts.recent[0].holder_proof_verified, false)
    const accepted = await answer(opened, { transaction_data_hashes: encoded.map((e) => sha256(e)) })
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body))
  })

  it('an item naming a credential query the request does not have is a 400 naming the field; nothing is created', async () => {
    const res = await createRequest({ transaction_data: [{ ...PAYMENT, credential_ids: ['nope'] }] })
    assert.equal(res.statusCode, 400, res.body)
    assert.match(res.json().message, /transaction_data\[0\]\.credential_ids/)
    const missingType = await createRequest({ transaction_data: [{ amount: '1' }] })
    assert.equal(missingType.statusCode, 400, missingType.body)
  })
})
