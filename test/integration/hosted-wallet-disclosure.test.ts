/**
 * What the hosted wallet discloses when a verifier offers a choice (DCQL credential_sets,
 * OpenID4VP 1.0 §6.2): one option per set, the one disclosing least unless the holder picks
 * another, optional sets left out unless picked, and the prepared answer naming every claim that
 * leaves. Checked against this service's verifier and against an outside verifier built with
 * @openid4vc/openid4vp, whose received vp_token is decoded here with @sd-jwt and jose.
 */
import assert from 'node:assert/strict'
import { sign } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import * as jose from 'jose'
import { createHash } from 'node:crypto'
import { bearer, DidClient } from '../helpers/did-client.js'
import { closeTwoInstances, openTwoInstances, type TwoInstances } from '../helpers/https-issuer.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { OutsideVerifier } from '../helpers/outside-verifier.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Membership',
  version: '1',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'email', data_type: 'email', required: true },
    { name: 'member_no', data_type: 'string' },
  ],
  anonymous_credentials: false,
}
const ATTRIBUTES = { given_name: 'Ada', email: 'ada@example.org', member_no: 'L-1815' }

const signed = (holder: DidClient, signingInput: string) =>
  `${signingInput}.${sign(null, Buffer.from(signingInput), holder.privateKey).toString('base64url')}`
const paths = (claims: Array<Array<string | number | null>>) => claims.map((p) => p.join('.'))
const sdClaims = (presentation: string) =>
  new SDJwtVcInstance({
    hasher: (data: string | ArrayBuffer) =>
      createHash('sha256')
        .update(typeof data === 'string' ? data : Buffer.from(data))
        .digest(),
  }).getClaims(presentation) as Promise<Json>

describe('the hosted wallet answers one option of each credential set and shows what leaves', () => {
  let two: TwoInstances
  let outside: OutsideVerifier
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  let holderToken: string
  let verifierToken: string
  let schemaId: string
  let vct: string

  const answer = (body: Json) =>
    two.home.app.inject({
      method: 'POST',
      url: `/api/wallet/${holder.did}/presentation-requests/answer`,
      headers: { ...bearer(holderToken), 'x-user-did': holder.did },
      payload: body,
    })
  const send = (prepared: Json) =>
    two.home.app.inject({
      method: 'POST',
      url: `/api/wallet/${holder.did}/presentation-requests/answer/${prepared.session_id}`,
      headers: { ...bearer(holderToken), 'x-user-did': holder.did },
      payload: {
        signatures: Object.fromEntries(
          (prepared.presentations as Json[]).map((p) => [p.query_id, signed(holder, p.to_sign.signing_input)]),
        ),
      },
    })
  const homeRequest = async () => {
    const res = await callAs(two.home.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'MemberCheck',
      required_credentials: [
        { credential_type: 'Membership', schema_id: schemaId, required_attributes: ['given_name'] },
      ],
      purpose: 'Check the membership',
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }
  const sdQuery = (id: string, claim: string) => ({
    id,
    format: 'dc+sd-jwt',
    meta: { vct_values: [vct] },
    claims: [{ path: [claim] }],
  })
  const jwtQuery = (id: string, claim: string) => ({
    id,
    format: 'jwt_vc_json',
    meta: { type_values: [['Membership']] },
    claims: [{ path: ['credentialSubject', claim] }],
  })

  before(async () => {
    two = await openTwoInstances()
    outside = await OutsideVerifier.open()
    await issuer.setUp(two.home.app, 'Home club')
    schemaId = await issuer.schema(two.home.app, SCHEMA)
    vct = `${two.homeFront.origin}/vct/${encodeURIComponent(schemaId)}`
    holderToken = await holder.login(two.home.app)
    verifierToken = await verifier.login(two.home.app)
    // The holder holds the same membership in both formats.
    for (const format of ['dc+sd-jwt', 'jwt_vc_json']) {
      const issued = await callAs(two.home.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
        credential_type: 'Membership',
        schema_id: schemaId,
        subject_did: holder.did,
        attributes: ATTRIBUTES,
        format,
      })
      assert.equal(issued.statusCode, 201, issued.body)
    }
  })
  after(async () => {
    await outside.close()
    await closeTwoInstances(two)
  })

  it("this service's verifier offers SD-JWT VC or JWT-VC: only the SD-JWT VC is prepared, naming the one claim it discloses, and the verifier accepts", async () => {
    const created = await homeRequest()
    const prepared = await answer({ authorization_request_uri: created.authorization_request_uri })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const body = prepared.json() as Json
    assert.equal(
      body.presentations.length,
      1,
      `one option of the set is answered, not ${paths(body.presentations.map((p: Json) => [p.query_id]))}`,
    )
    const [presentation] = body.presentations as Json[]
    assert.equal(presentation!.format, 'dc+sd-jwt')
    assert.ok(paths(presentation!.claims).includes('given_name'))
    assert.ok(
      !paths(presentation!.claims).some((p) => p.includes('email') || p.includes('member_no')),
      JSON.stringify(presentation!.claims),
    )
    assert.equal(presentation!.disclosed.given_name, 'Ada')
    assert.equal(presentation!.disclosed.email, undefined)
    assert.deepEqual(body.credential_sets, [
      { index: 0, required: true, options: [['c0_sd_jwt'], ['c0_jwt_vc']], satisfiable: [0, 1], chosen: 0 },
    ])

    const sent = await send(body)
    assert.equal(sent.statusCode, 200, sent.body)
    assert.equal(sent.json().accepted, true, sent.body)
  })

  it('the holder may choose the JWT-VC option instead: then every attribute is listed as leaving, and that is what is sent', async () => {
    const created = await homeRequest()
    const prepared = await answer({ authorization_request_uri: created.authorization_request_uri, choices: { 0: 1 } })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const body = prepared.json() as Json
    assert.equal(body.presentations.length, 1)
    const [presentation] = body.presentations as Json[]
    assert.equal(presentation!.format, 'jwt_vc_json')
    for (const name of Object.keys(ATTRIBUTES))
      assert.ok(
        paths(presentation!.claims).includes(`credentialSubject.${name}`),
        `${name} leaves with the JWT-VC: ${JSON.stringify(presentation!.claims)}`,
      )
    assert.equal(presentation!.disclosed.credentialSubject.email, 'ada@example.org')
    assert.equal(body.credential_sets[0].chosen, 1)
    const sent = await send(body)
    assert.equal(sent.json().accepted, true, sent.body)
  })

  it('an outside verifier preferring JWT-VC gets the SD-JWT VC that discloses less: the vp_token it received holds one presentation with the one claim', async () => {
    const { uri } = await outside.request({
      credentials: [jwtQuery('card_jwt', 'given_name'), sdQuery('card_sd', 'given_name')],
      credential_sets: [{ options: [['card_jwt'], ['card_sd']] }],
    })
    const prepared = await answer({ authorization_request_uri: uri })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const body = prepared.json() as Json
    assert.deepEqual(
      body.presentations.map((p: Json) => p.query_id),
      ['card_sd'],
    )
    const sent = await send(body)
    assert.equal(sent.statusCode, 200, sent.body)
    assert.equal(sent.json().accepted, true, sent.body)

    const vpToken = outside.lastVpToken()
    assert.deepEqual(Object.keys(vpToken), ['card_sd'], 'only the chosen option reached the verifier')
    const claims = await sdClaims(vpToken.card_sd![0] as string)
    assert.equal(claims.given_name, 'Ada')
    assert.equal(claims.email, undefined, 'email was not asked for and did not leave')
    assert.equal(claims.member_no, undefined)
    // Everything the verifier can read was shown to the holder.
    for (const [name, value] of Object.entries(claims))
      assert.deepEqual(body.presentations[0].disclosed[name], value, name)
  })

  it('a JWT-VC the holder picks leaves whole, and the prepared claims name every attribute the verifier then reads', async () => {
    const { uri } = await outside.request({
      credentials: [jwtQuery('card_jwt', 'given_name'), sdQuery('card_sd', 'given_name')],
      credential_sets: [{ options: [['card_jwt'], ['card_sd']] }],
    })
    const body = (await answer({ authorization_request_uri: uri, choices: { 0: 0 } })).json() as Json
    assert.deepEqual(
      body.presentations.map((p: Json) => p.query_id),
      ['card_jwt'],
    )
    assert.equal((await send(body)).json().accepted, true)
    const vpToken = outside.lastVpToken()
    assert.deepEqual(Object.keys(vpToken), ['card_jwt'])
    const vp = jose.decodeJwt(vpToken.card_jwt![0] as string) as Json
    const vc = jose.decodeJwt(vp.vp.verifiableCredential[0]) as Json
    const listed = paths(body.presentations[0].claims)
    for (const name of Object.keys(vc.vc.credentialSubject))
      assert.ok(listed.includes(`credentialSubject.${name}`), `${name} was sent but not listed: ${listed.join(', ')}`)
    assert.equal(vc.vc.credentialSubject.email, 'ada@example.org')
  })

  it('required sets and queries in no set are answered, an optional set only when the holder picks it; bad choices are refused', async () => {
    const dcql = {
      credentials: [
        sdQuery('name_sd', 'given_name'),
        jwtQuery('name_jwt', 'given_name'),
        sdQuery('number_sd', 'member_no'),
        jwtQuery('mail_jwt', 'email'),
      ],
      credential_sets: [{ options: [['name_jwt'], ['name_sd']] }, { options: [['mail_jwt']], required: false }],
    }
    const first = await outside.request(dcql)
    const body = (await answer({ authorization_request_uri: first.uri })).json() as Json
    assert.deepEqual(body.presentations.map((p: Json) => p.query_id).sort(), ['name_sd', 'number_sd'])
    assert.deepEqual(
      body.credential_sets.map((s: Json) => s.chosen),
      [1, null],
    )
    assert.equal((await send(body)).json().accepted, true)
    assert.deepEqual(Object.keys(outside.lastVpToken()).sort(), ['name_sd', 'number_sd'])

    const second = await outside.request(dcql)
    const opted = (await answer({ authorization_request_uri: second.uri, choices: { 1: 0 } })).json() as Json
    assert.deepEqual(opted.presentations.map((p: Json) => p.query_id).sort(), ['mail_jwt', 'name_sd', 'number_sd'])

    for (const [choices, status, field] of [
      [{ 0: null }, 400, 'choices.0'],
      [{ 2: 0 }, 400, 'choices.2'],
      [{ 1: 3 }, 400, 'choices.1'],
    ] as const) {
      const refused = await answer({ authorization_request_uri: (await outside.request(dcql)).uri, choices })
      assert.equal(refused.statusCode, status, refused.body)
      assert.equal(refused.json().details.field, field, refused.body)
    }
    const notAnOption = await answer({
      authorization_request_uri: (await outside.request(dcql)).uri,
      choices: { x: 0 },
    })
    assert.equal(notAnOption.statusCode, 400, notAnOption.body)
  })
})
