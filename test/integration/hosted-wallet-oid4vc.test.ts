/**
 * The hosted wallet speaks OpenID4VCI and OpenID4VP (docs/openid4vc.md "The hosted wallet"):
 * a holder of one service instance accepts an offer of a second instance (a foreign issuer,
 * reached over HTTPS like any other) and answers a verifier's openid4vp:// request, the service
 * preparing and the holder signing with its own key. Both instances are the real app behind real
 * HTTPS fronts; the holder's signature is made here with node:crypto, as its own client would.
 */
import assert from 'node:assert/strict'
import { sign } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { bearer, DidClient } from '../helpers/did-client.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeTwoInstances, openTwoInstances } from '../helpers/https-issuer.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import type { TestApp } from '../helpers/test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Library card',
  version: '1',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'email', data_type: 'email', required: true },
    { name: 'member_no', data_type: 'string' },
  ],
  anonymous_credentials: false,
}
const ATTRIBUTES = { given_name: 'Ada', email: 'ada@example.org', member_no: 'L-1815' }

/** The holder's own signature over prepared bytes: a compact JWS (RFC 7515) with its Ed25519 key. */
const signed = (holder: DidClient, signingInput: string) =>
  `${signingInput}.${sign(null, Buffer.from(signingInput), holder.privateKey).toString('base64url')}`

async function post(app: FastifyInstance, url: string, token: string, did: string, payload: unknown) {
  return app.inject({
    method: 'POST',
    url,
    headers: { ...bearer(token), 'x-user-did': did },
    payload: payload as object,
  })
}

describe('the hosted wallet with OpenID4VCI and OpenID4VP', () => {
  let homeFront: HttpsFront
  let foreignFront: HttpsFront
  let home: TestApp
  let foreign: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const other = new DidClient()
  const verifier = new DidClient()
  let holderToken: string
  let otherToken: string
  let verifierToken: string
  let schemaId: string

  const offer = async (body: Json = {}) => {
    const res = await callAs(foreign.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
      credential_type: 'LibraryCard',
      schema_id: schemaId,
      attributes: ATTRIBUTES,
      format: 'dc+sd-jwt',
      ...body,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }
  const accept = (body: Json, who = holder, token = holderToken) =>
    post(home.app, `/api/wallet/${who.did}/offers/accept`, token, who.did, body)
  const complete = (sessionId: string, body: Json, who = holder, token = holderToken) =>
    post(home.app, `/api/wallet/${who.did}/offers/accept/${sessionId}`, token, who.did, body)
  const request = async (body: Json = {}) => {
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
      ...body,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }
  const answer = (body: Json) =>
    post(home.app, `/api/wallet/${holder.did}/presentation-requests/answer`, holderToken, holder.did, body)
  const send = (sessionId: string, body: Json) =>
    post(home.app, `/api/wallet/${holder.did}/presentation-requests/answer/${sessionId}`, holderToken, holder.did, body)

  /** Accepts one offer of the foreign issuer into the holder's wallet; the stored credential. */
  const received = async (body: Json = {}): Promise<Json> => {
    const created = await offer(body)
    const prepared = await accept({
      offer_uri: created.credential_offer_uri,
      ...(created.tx_code ? { tx_code: created.tx_code } : {}),
    })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const done = await complete(prepared.json().session_id, {
      proof_jwt: signed(holder, prepared.json().proof.signing_input),
    })
    assert.equal(done.statusCode, 201, done.body)
    return done.json().credentials[0] as Json
  }

  before(async () => {
    // The home instance calls the foreign one on loopback: private addresses allowed for it alone.
    ;({ homeFront, foreignFront, home, foreign } = await openTwoInstances())
    await issuer.setUp(foreign.app, 'City library')
    schemaId = await issuer.schema(foreign.app, SCHEMA)
    holderToken = await holder.login(home.app)
    otherToken = await other.login(home.app)
    verifierToken = await verifier.login(home.app)
  })
  after(() => closeTwoInstances({ homeFront, foreignFront, home, foreign }))

  it('accepts an SD-JWT VC offer of another service with its tx_code: the holder signs the prepared proof, the credential is verified and kept', async () => {
    const created = await offer({ tx_code: true })
    assert.match(created.credential_offer_uri, /^openid-credential-offer:\/\/\?credential_offer_uri=/)
    const prepared = await accept({ offer_uri: created.credential_offer_uri, tx_code: created.tx_code })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const { proof, session_id: sessionId, credential_issuer: credentialIssuer, format } = prepared.json() as Json
    assert.equal(format, 'dc+sd-jwt')
    assert.ok(credentialIssuer.startsWith(foreignFront.origin), credentialIssuer)
    assert.equal(proof.header.typ, 'openid4vci-proof+jwt')
    // The issuer binds SD-JWT VCs to a bare key (`jwk`): the proof carries the holder DID's own key.
    assert.equal(proof.header.kid, undefined)
    assert.equal(
      proof.header.jwk.x,
      Buffer.from(holder.publicKey).toString('base64url'),
      "the proof carries the holder DID's key",
    )
    assert.equal(proof.payload.aud, credentialIssuer)
    assert.equal(typeof proof.payload.nonce, 'string')

    const done = await complete(sessionId, { proof_jwt: signed(holder, proof.signing_input) })
    assert.equal(done.statusCode, 201, done.body)
    const kept = (done.json().credentials as Json[])[0]!
    assert.equal(kept.credential_type, 'LibraryCard')
    assert.equal(kept.credential_data.given_name, 'Ada')

    // The holder's wallet lists it; the foreign issuer counted the offer's use and recorded the credential for the holder.
    const listed = await home.app.inject({
      method: 'GET',
      url: `/api/wallet/${holder.did}/credentials`,
      headers: { ...bearer(holderToken), 'x-user-did': holder.did },
    })
    assert.ok((listed.json().data as Json[]).some((c) => c.id === kept.id))
    const offers = (await callAs(foreign.app, 'GET', `/api/issuer/${issuer.did}/offers`, issuer.token)).json()
      .data as Json[]
    assert.equal(offers.find((o) => o.id === created.offer.id)?.uses, 1)
    const issued = (await callAs(foreign.app, 'GET', `/api/issuer/${issuer.did}/credentials`, issuer.token)).json()
      .data as Json[]
    assert.equal(
      issued.filter((c) => c.credential_type === 'LibraryCard').length,
      1,
      'the issuer recorded the credential',
    )

    // The session completes once.
    const again = await complete(sessionId, { proof_jwt: signed(holder, proof.signing_input) })
    assert.equal(again.statusCode, 404, again.body)
  })

  it('refuses what the exchange cannot use: no tx_code (400), a wrong tx_code (422, the issuer’s invalid_grant), a proof over other bytes or by another key (400), another holder’s session (404)', async () => {
    const created = await offer({ tx_code: true })
    const missing = await accept({ offer_uri: created.credential_offer_uri })
    assert.equal(missing.statusCode, 400, missing.body)
    assert.match(missing.json().message, /transaction code/)

    const wrong = await accept({ offer_uri: created.credential_offer_uri, tx_code: '000000000' })
    assert.equal(wrong.statusCode, 422, wrong.body)
    assert.equal(wrong.json().details.issuer_error, 'invalid_grant')

    const fresh = await offer()
    const prepared = (await accept({ offer_uri: fresh.credential_offer_uri })).json() as Json
    const { signing_input: input } = prepared.proof
    const otherBytes = await complete(prepared.session_id, { proof_jwt: signed(holder, `${input}x`) })
    assert.equal(otherBytes.statusCode, 400, otherBytes.body)
    const otherKey = await complete(prepared.session_id, { proof_jwt: signed(other, input) })
    assert.equal(otherKey.statusCode, 400, otherKey.body)
    assert.match(otherKey.json().message, /proof_jwt/)
    const notTheirs = await complete(prepared.session_id, { proof_jwt: signed(other, input) }, other, otherToken)
    assert.equal(notTheirs.statusCode, 404, notTheirs.body)
    // None of the refusals spent the session: the holder still completes it.
    const done = await complete(prepared.session_id, { proof_jwt: signed(holder, input) })
    assert.equal(done.statusCode, 201, done.body)
  })

  it('answers an openid4vp:// request from the wallet, disclosing only the asked claim: the verifier accepts and records it verified', async () => {
    await received()
    const created = await request()
    const prepared = await answer({ authorization_request_uri: created.authorization_request_uri })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const body = prepared.json() as Json
    assert.match(body.verifier, /^decentralized_identifier:did:web:/)
    const presentation = (body.presentations as Json[])[0]!
    assert.equal(presentation.format, 'dc+sd-jwt')
    assert.ok(
      (presentation.claims as string[][]).some((path) => path.join('.') === 'given_name'),
      JSON.stringify(presentation.claims),
    )
    assert.ok(!(presentation.claims as string[][]).some((path) => path.includes('email')), 'email was not asked for')
    assert.equal(presentation.to_sign.header.typ, 'kb+jwt')
    assert.equal(presentation.to_sign.payload.aud, body.verifier)

    const sent = await send(body.session_id, {
      signatures: { [presentation.query_id]: signed(holder, presentation.to_sign.signing_input) },
    })
    assert.equal(sent.statusCode, 200, sent.body)
    assert.equal(sent.json().accepted, true, sent.body)
    assert.equal(sent.json().verifier_status, 200)

    const recorded = (
      await callAs(home.app, 'GET', `/api/verifier/requests/${created.request.id}`, verifierToken)
    ).json() as Json
    assert.equal(recorded.openid4vp.answer, 'accepted')
    assert.equal(recorded.request.status, 'verified')
    const replay = await send(body.session_id, {
      signatures: { [presentation.query_id]: signed(holder, presentation.to_sign.signing_input) },
    })
    assert.equal(replay.statusCode, 404, replay.body)
  })

  it('answers from a credential issued here too (the spec’s issue route), as a VP-JWT for a JWT-VC query', async () => {
    const homeIssuer = new IssuerActor()
    await homeIssuer.setUp(home.app, 'Home registry')
    const homeSchema = await homeIssuer.schema(home.app, { ...SCHEMA, name: 'Membership' })
    const issued = await callAs(home.app, 'POST', `/api/issuer/${homeIssuer.did}/issue`, homeIssuer.token, {
      credential_type: 'Membership',
      schema_id: homeSchema,
      subject_did: holder.did,
      attributes: ATTRIBUTES,
      format: 'jwt_vc_json',
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const created = await request({
      required_credentials: [
        { credential_type: 'Membership', issuer_did: homeIssuer.did, required_attributes: ['given_name'] },
      ],
    })
    const prepared = await answer({ authorization_request_uri: created.authorization_request_uri })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const body = prepared.json() as Json
    const presentation = (body.presentations as Json[])[0]!
    assert.equal(presentation.format, 'jwt_vc_json')
    assert.equal(presentation.credential_id, issued.json().credential.id)
    assert.ok(String(presentation.to_sign.header.kid).startsWith(`${holder.did}#`))
    assert.equal(presentation.to_sign.payload.nonce, created.request.nonce)
    const sent = await send(body.session_id, {
      signatures: { [presentation.query_id]: signed(holder, presentation.to_sign.signing_input) },
    })
    assert.equal(sent.statusCode, 200, sent.body)
    assert.equal(sent.json().accepted, true, sent.body)
  })

  it('a request its credentials cannot meet is a 422 naming the query; a KB-JWT signed by another key is a 400 before anything is sent', async () => {
    const unmet = await request({
      required_credentials: [{ credential_type: 'Passport', required_attributes: ['given_name'] }],
    })
    const refused = await answer({ authorization_request_uri: unmet.authorization_request_uri })
    assert.equal(refused.statusCode, 422, refused.body)
    assert.ok(refused.json().details.unmet_queries.length > 0)

    await received()
    const created = await request({ response_mode: 'direct_post.jwt' })
    const body = (await answer({ authorization_request_uri: created.authorization_request_uri })).json() as Json
    const presentation = (body.presentations as Json[])[0]!
    const forged = await send(body.session_id, {
      signatures: { [presentation.query_id]: signed(other, presentation.to_sign.signing_input) },
    })
    assert.equal(forged.statusCode, 400, forged.body)
    const sent = await send(body.session_id, {
      signatures: { [presentation.query_id]: signed(holder, presentation.to_sign.signing_input) },
    })
    assert.equal(sent.json().accepted, true, sent.body)
  })

  it('URIs that are not an offer or an authorization request are a 400 naming the field; an unusable request a 422', async () => {
    for (const offerUri of ['2026-01-01T00:00:00', 'openid-credential-offer://?nothing=1', 'https://issuer.example/']) {
      const res = await accept({ offer_uri: offerUri })
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(res.json().details.field, 'offer_uri')
    }
    const garbage = await answer({ authorization_request_uri: '2026-01-01T00:00:00' })
    assert.equal(garbage.statusCode, 400, garbage.body)
    assert.equal(garbage.json().details.field, 'authorization_request_uri')
    // A URI that is an OpenID4VP request, but one nobody could answer: 422 with the library's reason.
    const unusable = await answer({ authorization_request_uri: 'openid4vp://?client_id=x&nonce=n' })
    assert.equal(unusable.statusCode, 422, unusable.body)
    assert.match(unusable.json().message, /response_uri/)
  })

  it('an offer at a private address is refused when outgoing calls to private addresses are not allowed', async () => {
    // The foreign instance keeps the default policy: its hosted wallet may not call the home one on loopback.
    const foreignHolder = new DidClient()
    const token = await foreignHolder.login(foreign.app)
    const res = await post(foreign.app, `/api/wallet/${foreignHolder.did}/offers/accept`, token, foreignHolder.did, {
      offer_uri: `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(`${homeFront.origin}/issuers/x/oid4vci/offers/y`)}`,
    })
    assert.equal(res.statusCode, 400, res.body)
    assert.match(res.json().message, /refused/)
  })
})
