/**
 * A holder's decline (the OID4VP 1.0 §8.5 error response, error=access_denied, by direct_post)
 * across independent software, built on none of the OpenID4VP code this service uses:
 *  (a) Sphereon's @sphereon/did-auth-siop 0.20.1 OP reads a request of this service's verifier and
 *      declines it. Neither it nor Credo 0.6.3's holder (OpenId4vpHolderService: resolve and accept
 *      only) has an API for an error response, so the OP's own wire path is used: its
 *      `encodeJsonAsURI` and `post` (form-encoded), what its submitAuthorizationResponse sends.
 *  (b) This service's hosted wallet declines a request of a Sphereon RP, which receives the form,
 *      finds its own session by the state and keeps the error.
 * A request addressed to no one stays open after a decline (anyone who saw the QR code can send
 * one) and a valid answer is then accepted; one addressed to a holder is closed by it and a later
 * valid answer refused.
 */
import assert from 'node:assert/strict'
import { createHash, sign } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { ContentType, encodeJsonAsURI, OP, post as sphereonPost } from '@sphereon/did-auth-siop'
import * as jose from 'jose'
import { bearer, DidClient } from '../helpers/did-client.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { PresentationWallet } from '../helpers/oid4vc-wallet/presentation-wallet.js'
import { generateWalletKey, resolveDidUrlJwk, type WalletKey } from '../helpers/oid4vc-wallet/wallet-keys.js'
import { SphereonVerifier } from '../helpers/sphereon-verifier.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SELF_ISSUED_V2 = 'https://self-issued.me/v2'
const SCHEMA = {
  name: 'Identity',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'family_name', data_type: 'string', required: true },
  ],
  anonymous_credentials: false,
}
const ATTRIBUTES = { given_name: 'Erika', family_name: 'Mustermann' }
const hasher = (data: string | ArrayBuffer, alg: string) =>
  new Uint8Array(
    createHash(alg.replace('-', '').toLowerCase())
      .update(typeof data === 'string' ? data : Buffer.from(data))
      .digest(),
  )

describe('OpenID4VP decline (error response) with independent software', () => {
  let front: HttpsFront
  let t: TestApp
  let sphereonRp: SphereonVerifier
  const issuer = new IssuerActor()
  const verifier = new DidClient()
  const holder = new DidClient()
  let verifierToken: string
  let holderToken: string
  let schemaId: string
  let key: WalletKey
  let sdJwt: string

  /** Sphereon's OP, verifying a request object as a wallet does (the verifier's did:web resolved, aud per §5.8). */
  const sphereonOp = () =>
    OP.builder()
      .withVerifyJwtCallback(async (verifierInfo, jwt) => {
        if (verifierInfo.method !== 'did')
          throw new Error(`a did-signed request object was expected, not ${verifierInfo.method}`)
        const jwk = await resolveDidUrlJwk(verifierInfo.didUrl)
        await jose.jwtVerify(jwt.raw, await jose.importJWK(jwk as jose.JWK, verifierInfo.alg), {
          audience: SELF_ISSUED_V2,
          typ: 'oauth-authz-req+jwt',
        })
        return true
      })
      .withCreateJwtCallback(async () => {
        throw new Error('a decline signs nothing')
      })
      .withHasher(hasher as never)
      .build()
  /** Sphereon's OP reads the request, then posts the error response the way its submitAuthorizationResponse posts a form. */
  const sphereonDeclines = async (uri: string, description?: string) => {
    const verified = await sphereonOp().verifyAuthorizationRequest(uri)
    // The state as the OP answers it: the request object's, merged over the URI's parameters.
    const state = await verified.authorizationRequest.getMergedProperty<string>('state')
    if (!verified.responseURI) throw new Error('Sphereon found no response_uri in the request')
    const payload = { error: 'access_denied', ...(description ? { error_description: description } : {}), state }
    const sent = await sphereonPost(verified.responseURI, encodeJsonAsURI(payload), {
      contentType: ContentType.FORM_URL_ENCODED,
    })
    return { status: sent.origResponse.status, state, body: JSON.stringify(sent.errorBody ?? sent.successBody ?? null) }
  }
  const createRequest = async (body: Json = {}) => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'IdentityCheck',
      required_credentials: [{ credential_type: 'Identity', schema_id: schemaId, required_attributes: ['given_name'] }],
      purpose: 'Identity check',
      ...body,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }
  const view = async (id: string) => {
    const res = await callAs(t.app, 'GET', `/api/verifier/requests/${id}`, verifierToken)
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as Json
  }
  const wallet = (path: string, body: Json) =>
    t.app.inject({
      method: 'POST',
      url: `/api/wallet/${holder.did}${path}`,
      headers: { ...bearer(holderToken), 'x-user-did': holder.did },
      payload: body,
    })
  const signed = (signingInput: string) =>
    `${signingInput}.${sign(null, Buffer.from(signingInput), holder.privateKey).toString('base64url')}`

  before(async () => {
    front = await HttpsFront.open()
    t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin, OUTBOUND_ALLOW_PRIVATE: 'true' } })
    front.serve(t.app)
    await issuer.setUp(t.app, 'Registry')
    schemaId = await issuer.schema(t.app, SCHEMA)
    verifierToken = await verifier.login(t.app)
    holderToken = await holder.login(t.app)
    key = await generateWalletKey('ES256')
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Identity',
      schema_id: schemaId,
      subject_did: key.did,
      attributes: ATTRIBUTES,
      format: 'dc+sd-jwt',
    })
    assert.equal(issued.statusCode, 201, issued.body)
    sdJwt = issued.json().credential.jwt
    // The hosted wallet's holder receives the same kind of credential through an OpenID4VCI offer.
    const offer = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
      credential_type: 'Identity',
      schema_id: schemaId,
      attributes: ATTRIBUTES,
      format: 'dc+sd-jwt',
    })
    assert.equal(offer.statusCode, 201, offer.body)
    const prepared = await wallet('/offers/accept', { offer_uri: offer.json().credential_offer_uri })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const done = await wallet(`/offers/accept/${prepared.json().session_id}`, {
      proof_jwt: signed(prepared.json().proof.signing_input),
    })
    assert.equal(done.statusCode, 201, done.body)
    const vct = `${front.origin}/vct/${encodeURIComponent(schemaId)}`
    sphereonRp = await SphereonVerifier.open({
      credentials: [
        { id: 'identity', format: 'dc+sd-jwt', meta: { vct_values: [vct] }, claims: [{ path: ['given_name'] }] },
      ],
    })
  })
  after(async () => {
    await sphereonRp?.close()
    await t?.close()
    await front?.close()
  })

  it('(a) Sphereon declines a request addressed to no one: the verifier sees it, the request stays open, and a valid answer is then accepted', async () => {
    const created = await createRequest()
    const declined = await sphereonDeclines(created.authorization_request_uri, 'Not now')
    assert.equal(declined.status, 200, declined.body)
    assert.equal(declined.state, created.openid4vp.state)
    let seen = await view(created.request.id)
    assert.equal(seen.request.status, 'pending')
    assert.equal(seen.openid4vp.answer, null)
    assert.deepEqual(
      [seen.openid4vp.holder_response?.error, seen.openid4vp.holder_response?.error_description],
      ['access_denied', 'Not now'],
    )
    assert.equal(seen.openid4vp.refused_attempts.count, 1)

    const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    seen = await view(created.request.id)
    assert.equal(seen.request.status, 'verified')
    assert.equal(seen.openid4vp.answer, 'accepted')
  })

  it('(a) Sphereon declines a request addressed to the holder: it is closed as declined, and a later valid answer is refused', async () => {
    const created = await createRequest({ holder_did: key.did })
    // The holder's valid answer, made before the decline and posted after it (a closed request's object is gone).
    const ready = await new PresentationWallet(key, [sdJwt]).prepare(created.authorization_request_uri)
    const declined = await sphereonDeclines(created.authorization_request_uri)
    assert.equal(declined.status, 200, declined.body)
    const seen = await view(created.request.id)
    assert.equal(seen.request.status, 'rejected')
    assert.equal(seen.openid4vp.answer, 'declined')
    assert.equal(seen.openid4vp.holder_response.error, 'access_denied')

    const late = await fetch(created.openid4vp.response_uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ vp_token: JSON.stringify(ready.vpToken), state: created.openid4vp.state }),
    })
    const lateBody = (await late.json()) as Json
    assert.equal(late.status, 400, JSON.stringify(lateBody))
    assert.equal(lateBody.error, 'invalid_request')
    assert.match(lateBody.error_description, /already answered/)
    assert.equal((await view(created.request.id)).openid4vp.answer, 'declined', 'the verdict stays')
    // The same decline again (posted as Sphereon's OP posts it; the closed request's object is gone) is refused.
    const again = await sphereonPost(
      created.openid4vp.response_uri,
      encodeJsonAsURI({ error: 'access_denied', state: created.openid4vp.state }),
      { contentType: ContentType.FORM_URL_ENCODED },
    )
    assert.equal(again.origResponse.status, 400)
  })

  it("(b) this service's hosted wallet declines a Sphereon RP's request: the RP receives access_denied with its own session's state, and no presentation", async () => {
    const { uri, correlationId, state } = await sphereonRp.request()
    const prepared = await wallet('/presentation-requests/answer', { authorization_request_uri: uri })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const body = prepared.json() as Json
    assert.equal(body.verifier_identity.client_id, sphereonRp.clientId)
    assert.equal(body.verifier_identity.verified, true)
    assert.equal(body.verifier_identity.name, 'Sphereon shop')
    assert.equal(sphereonRp.received.length, 0, 'nothing reached the verifier before the holder decided')

    const declined = await wallet(`/presentation-requests/answer/${body.session_id}/decline`, {
      reason: 'not this shop',
    })
    assert.equal(declined.statusCode, 200, declined.body)
    assert.equal(declined.json().verifier_status, 200)
    assert.equal(sphereonRp.received.length, 1)
    const received = sphereonRp.received[0]!
    assert.deepEqual([...received.form.keys()].sort(), ['error', 'error_description', 'state'])
    assert.equal(received.form.get('error'), 'access_denied')
    assert.match(received.form.get('error_description') ?? '', /not this shop/)
    // The RP's session manager maps the response's state to the session that request opened.
    assert.equal(received.form.get('state'), state)
    assert.equal(received.correlationId, correlationId)
    const kept = (await sphereonRp.sessions.getResponseStateByCorrelationId(correlationId, false)) as Json | undefined
    assert.equal(
      kept?.response?.payload?.error ?? kept?.response?._payload?.error,
      'access_denied',
      JSON.stringify(kept),
    )
  })

  it("the hosted wallet's decline of this service's request reaches it whatever the holder typed: control characters never travel (RFC 6749 §4.1.2.1)", async () => {
    const created = await createRequest()
    const prepared = await wallet('/presentation-requests/answer', {
      authorization_request_uri: created.authorization_request_uri,
    })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const declined = await wallet(`/presentation-requests/answer/${prepared.json().session_id}/decline`, {
      reason: 'line one\nline two\ttabbed\u0007',
    })
    assert.equal(declined.statusCode, 200, declined.body)
    assert.equal(declined.json().verifier_status, 200, 'the verifier took the error response')
    const seen = await view(created.request.id)
    assert.equal(seen.openid4vp.holder_response?.error, 'access_denied')
    assert.match(seen.openid4vp.holder_response.error_description, /line one line two tabbed/)
    assert.ok(
      ![...(seen.openid4vp.holder_response.error_description as string)].some(
        (c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f,
      ),
      seen.openid4vp.holder_response.error_description,
    )
  })
})
