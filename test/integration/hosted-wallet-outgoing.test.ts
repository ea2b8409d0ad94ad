/**
 * The hosted wallet's outgoing OpenID4VP calls, attacked from the verifier's side: a request that
 * makes the service fetch a private address, one that names a verifier nobody authenticated, an
 * answer that sends the holder's browser to `javascript:`, a session driven by another holder.
 * The verifier is an outside one (@openid4vc/openid4vp, or requests written by hand as an attacker
 * would); the wallet instance keeps the production address policy unless a test says otherwise.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import * as jose from 'jose'
import { DidClient } from '../helpers/did-client.js'
import { hostedWallet, type HostedWallet } from '../helpers/hosted-wallet.js'
import { OutsideVerifier } from '../helpers/outside-verifier.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const uriOf = (params: Record<string, unknown>) =>
  `openid4vp://?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]))}`

describe("the hosted wallet's outgoing calls to a hostile verifier", () => {
  let outside: OutsideVerifier
  /** Outgoing calls to private addresses refused (the default): the outside verifier on localhost is unreachable. */
  let guarded: HostedWallet
  /** Loopback allowed, so the outside verifier can be reached at all. */
  let open: HostedWallet
  const dcql = (vct: string) => ({
    credentials: [{ id: 'pass', format: 'dc+sd-jwt', meta: { vct_values: [vct] }, claims: [{ path: ['given_name'] }] }],
  })
  before(async () => {
    outside = await OutsideVerifier.open()
    guarded = await hostedWallet()
    open = await hostedWallet({ OUTBOUND_ALLOW_PRIVATE: 'true' })
  })
  after(async () => {
    await outside.close()
    await guarded.close()
    await open.close()
  })

  it('a client_metadata_uri at a private address is never fetched (the library fetches it with the global fetch, past the guard)', async () => {
    // A draft-era request (Presentation Exchange, client_id_scheme), which the library still resolves.
    const responseUri = `${outside.origin}/response/metadata`
    const draft = uriOf({
      client_id: responseUri,
      client_id_scheme: 'redirect_uri',
      response_type: 'vp_token',
      response_mode: 'direct_post',
      response_uri: responseUri,
      nonce: 'n-0123456789',
      state: 's-0123456789',
      presentation_definition: { id: 'pd', input_descriptors: [{ id: 'pass', constraints: {} }] },
      client_metadata_uri: `${outside.origin}/metadata`,
    })
    const res = await guarded.answer({ authorization_request_uri: draft })
    assert.equal(res.statusCode, 422, res.body)
    assert.ok(!outside.hits.includes('GET /metadata'), `the private address was fetched: ${outside.hits.join(', ')}`)
    assert.match(res.json().message, /client_metadata_uri/)

    // Inside a signed request object too.
    const signed = await outside.request(dcql(open.vct), {
      payload: { client_metadata_uri: `${outside.origin}/metadata` },
    })
    const inside = await open.answer({ authorization_request_uri: signed.uri })
    assert.equal(inside.statusCode, 422, inside.body)
    assert.ok(!outside.hits.includes('GET /metadata'), outside.hits.join(', '))
  })

  it('a request_uri at a private address is refused with the reason, as an offer is', async () => {
    const { uri } = await outside.request(dcql(guarded.vct))
    const before = outside.hits.length
    const res = await guarded.answer({ authorization_request_uri: uri })
    assert.equal(res.statusCode, 400, res.body)
    assert.match(res.json().message, /refused/)
    assert.deepEqual(outside.hits.slice(before), [])
  })

  it('a verifier that names itself without proof (a pre-registered name the wallet has no registry for) is refused before anything is prepared', async () => {
    const preRegistered = await open.answer({
      authorization_request_uri: uriOf({
        client_id: 'bank.example',
        response_type: 'vp_token',
        response_mode: 'direct_post',
        response_uri: `${outside.origin}/response/spoof`,
        nonce: 'n-0123456789',
        state: 's-1',
        dcql_query: dcql(open.vct),
      }),
    })
    assert.equal(preRegistered.statusCode, 422, preRegistered.body)
    assert.match(preRegistered.json().message, /"pre-registered", which the hosted wallet cannot authenticate/)
  })

  it('so is a verifier_attestation request object signed by whatever key its header carries', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519')
    const clientId = 'verifier_attestation:bank.example'
    const jwt = await new jose.SignJWT({
      client_id: clientId,
      response_type: 'vp_token',
      response_mode: 'direct_post',
      response_uri: `${outside.origin}/response/spoof`,
      nonce: 'n-0123456789',
      state: 's-2',
      dcql_query: dcql(open.vct),
      aud: 'https://self-issued.me/v2',
    })
      .setProtectedHeader({
        alg: 'EdDSA',
        typ: 'oauth-authz-req+jwt',
        jwk: publicKey.export({ format: 'jwk' }) as jose.JWK,
      })
      .setIssuedAt()
      .sign(privateKey)
    const attested = await open.answer({ authorization_request_uri: uriOf({ client_id: clientId, request: jwt }) })
    assert.equal(attested.statusCode, 422, attested.body)
  })

  it("a verifier's redirect_uri is passed on only as an https URL: javascript:, data: and http: become null", async () => {
    for (const [redirect, passed] of [
      ['javascript:alert(document.cookie)', null],
      ['data:text/html,<script>alert(1)</script>', null],
      ['http://verifier.example/done', null],
      ['https://verifier.example/done#response_code=abc', 'https://verifier.example/done#response_code=abc'],
    ] as const) {
      outside.answer = () => ({ status: 200, body: { redirect_uri: redirect } })
      const { uri } = await outside.request(dcql(open.vct))
      const prepared = await open.answer({ authorization_request_uri: uri })
      assert.equal(prepared.statusCode, 201, prepared.body)
      const sent = await open.send(prepared.json())
      assert.equal(sent.statusCode, 200, sent.body)
      assert.equal(sent.json().redirect_uri, passed, redirect)
    }
    outside.answer = () => ({ status: 200, body: {} })
  })

  it("another holder can neither see nor send a holder's prepared answer; a request object whose client_id is not the URI's is refused", async () => {
    const { uri } = await outside.request(dcql(open.vct))
    const prepared = (await open.answer({ authorization_request_uri: uri })).json() as Json
    const other = new DidClient()
    const otherToken = await other.login(open.t.app)
    const before = outside.received.length
    const stolen = await open.send(prepared, { holder: other, token: otherToken })
    assert.equal(stolen.statusCode, 404, stolen.body)
    assert.equal(outside.received.length, before, 'nothing was sent')
    assert.equal((await open.send(prepared)).json().accepted, true)

    const mismatched = await outside.request(dcql(open.vct))
    const swapped = mismatched.uri.replace(
      encodeURIComponent(outside.clientId),
      encodeURIComponent(`decentralized_identifier:${new DidClient().did}`),
    )
    const refused = await open.answer({ authorization_request_uri: swapped })
    assert.equal(refused.statusCode, 422, refused.body)
    assert.match(refused.json().message, /client_id/)
  })

  it('a request object larger than the outgoing-answer cap is refused without being read whole', async () => {
    const { uri } = await outside.request(dcql(open.vct))
    const path = [...outside.served.keys()].at(-1)!
    outside.served.set(path, { status: 200, body: 'a'.repeat(2 * 1024 * 1024) })
    const res = await open.answer({ authorization_request_uri: uri })
    assert.ok([400, 422, 503].includes(res.statusCode), res.body)
    assert.notEqual(res.statusCode, 201)
  })
})
