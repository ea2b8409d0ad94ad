/**
 * request_uri_method post (OpenID4VP 1.0 §5.10): the wallet POSTs its wallet_metadata and a
 * wallet_nonce to request_uri and gets a request object, signed then, carrying that nonce. A
 * wallet written with jose, fetch and node:crypto (test/helpers/oid4vc-wallet/x509-wallet.ts)
 * verifies it with x5c and answers; GET keeps answering; metadata the verifier cannot meet and a
 * POST to a request made for GET are refused with the protocol's errors.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import * as jose from 'jose'
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
const METADATA = {
  request_object_signing_alg_values_supported: ['ES256'],
  client_id_prefixes_supported: ['x509_hash', 'x509_san_dns', 'decentralized_identifier'],
  vp_formats_supported: { 'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256'], 'kb-jwt_alg_values': ['ES256'] } },
}

describe('OpenID4VP request_uri_method post, wallet_metadata and wallet_nonce', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  const verifier = new DidClient()
  let verifierToken: string
  let key: WalletKey
  let sdJwt: string
  let root: string

  const createRequest = (body: Json) =>
    callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'IdentityCheck',
      required_credentials: [{ credential_type: 'Identity', required_attributes: ASKED, format: 'dc+sd-jwt' }],
      purpose: 'Identity check',
      ...body,
    })
  const created = async (body: Json) => {
    const res = await createRequest(body)
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }

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
    // A verifier profile: its access certificate chain is listed publicly from the start.
    const profile = await callAs(t.app, 'POST', '/api/verifier', verifierToken, { name: 'Shop' })
    assert.equal(profile.statusCode, 201, profile.body)
    const certs = (await (await fetch(`${front.origin}/api/verifier/${verifier.did}/certificates`)).json()) as Json
    root = certs.certificates.find((c: Json) => c.use === 'root' && c.status === 'active').pem
  })
  after(async () => {
    await t.close()
    await front.close()
  })

  it('the wallet POSTs its metadata and nonce; the request object is signed with x5c and carries that wallet_nonce; answered', async () => {
    const request = await created({ client_id_prefix: 'x509_hash', request_uri_method: 'post' })
    const uri = readAuthorizationUri(request.authorization_request_uri)
    assert.equal(uri.method, 'post')
    const nonces = [randomBytes(16).toString('base64url'), randomBytes(16).toString('base64url')]
    const objects = await Promise.all(
      nonces.map((walletNonce) => fetchRequestObject(uri.requestUri, { walletNonce, walletMetadata: METADATA })),
    )
    const payloads: Json[] = []
    for (const [i, fetched] of objects.entries()) {
      assert.equal(fetched.status, 200, fetched.text)
      assert.match(String(fetched.contentType), /^application\/oauth-authz-req\+jwt/)
      const payload = (await verifyX509Request(fetched.text, uri.clientId, [root])) as Json
      assert.equal(payload.wallet_nonce, nonces[i])
      assert.equal(payload.nonce, request.request.nonce)
      assert.equal(payload.aud, 'https://self-issued.me/v2')
      payloads.push(payload)
    }
    const payload = payloads[0]!
    const vp = await presentSdJwt(key, sdJwt, ASKED, { aud: uri.clientId, nonce: payload.nonce })
    const answer = await postResponse(
      payload.response_uri,
      { [payload.dcql_query.credentials[0].id]: [vp] },
      payload.state,
    )
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
  })

  it('a wallet that only GETs still gets the request object (no wallet_nonce in it)', async () => {
    const request = await created({ client_id_prefix: 'x509_san_dns', request_uri_method: 'post' })
    const uri = readAuthorizationUri(request.authorization_request_uri)
    const fetched = await fetchRequestObject(uri.requestUri)
    assert.equal(fetched.status, 200)
    const payload = (await verifyX509Request(fetched.text, uri.clientId, [root])) as Json
    assert.equal(payload.wallet_nonce, undefined)
    // A POST with no metadata and no nonce is answered too (both are optional, §5.10.1).
    const bare = await fetchRequestObject(uri.requestUri, {})
    assert.equal(bare.status, 200, bare.text)
  })

  it('decentralized_identifier with post: the did:web signs and the nonce is echoed', async () => {
    const request = await created({ request_uri_method: 'post' })
    const uri = readAuthorizationUri(request.authorization_request_uri)
    assert.equal(uri.method, 'post')
    const fetched = await fetchRequestObject(uri.requestUri, { walletNonce: 'n-1', walletMetadata: METADATA })
    assert.equal(fetched.status, 200, fetched.text)
    assert.ok(
      String(jose.decodeProtectedHeader(fetched.text).kid).startsWith(
        uri.clientId.slice('decentralized_identifier:'.length),
      ),
    )
    assert.equal(jose.decodeJwt(fetched.text).wallet_nonce, 'n-1')
  })

  it('refusals: POST to a GET request, metadata the verifier cannot meet, unreadable metadata, post without a signed request', async () => {
    const getOnly = await created({ client_id_prefix: 'x509_hash' })
    assert.equal(readAuthorizationUri(getOnly.authorization_request_uri).method, null)
    const wrongMethod = await fetchRequestObject(getOnly.request_uri, { walletNonce: 'x' })
    assert.equal(wrongMethod.status, 400)
    assert.equal(JSON.parse(wrongMethod.text).error, 'invalid_request_uri_method')

    const post = await created({ client_id_prefix: 'x509_hash', request_uri_method: 'post' })
    for (const [walletMetadata, why] of [
      [{ request_object_signing_alg_values_supported: ['EdDSA'] }, /ES256/],
      [{ client_id_prefixes_supported: ['decentralized_identifier'] }, /x509_hash/],
    ] as const) {
      const res = await fetchRequestObject(post.request_uri, {
        walletNonce: 'x',
        walletMetadata: walletMetadata as Json,
      })
      assert.equal(res.status, 400, res.text)
      assert.equal(JSON.parse(res.text).error, 'invalid_request')
      assert.match(JSON.parse(res.text).error_description, why)
    }
    const garbled = await fetch(post.request_uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ wallet_metadata: '{not json' }).toString(),
    })
    assert.equal(garbled.status, 400)
    assert.equal(((await garbled.json()) as Json).error, 'invalid_request')

    const unsigned = await createRequest({ client_id_prefix: 'redirect_uri', request_uri_method: 'post' })
    assert.equal(unsigned.statusCode, 400, unsigned.body)
    assert.match(unsigned.json().message, /request_uri_method/)

    // An answered request's request_uri is gone for POST as for GET.
    const answeredUri = readAuthorizationUri(post.authorization_request_uri)
    const fetched = await fetchRequestObject(answeredUri.requestUri, { walletNonce: 'y' })
    const payload = (await verifyX509Request(fetched.text, answeredUri.clientId, [root])) as Json
    const vp = await presentSdJwt(key, sdJwt, ASKED, { aud: answeredUri.clientId, nonce: payload.nonce })
    const answer = await postResponse(
      payload.response_uri,
      { [payload.dcql_query.credentials[0].id]: [vp] },
      payload.state,
    )
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    assert.equal((await fetchRequestObject(answeredUri.requestUri, { walletNonce: 'z' })).status, 404)
  })
})
