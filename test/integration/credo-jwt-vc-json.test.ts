/**
 * Credo 0.6 (an independent holder agent, no Askar: test/helpers/credo-holder.ts) receives the
 * default format, `jwt_vc_json`, over OpenID4VCI with a pre-authorized code from the service
 * behind a real HTTPS front. Credo resolves the issuer's did:web itself (web-did-resolver over
 * HTTPS), verifies the JWT and its VCDM 1.1 JWT mapping (§6.3.1: `nbf`/`issuanceDate`,
 * `exp`/`expirationDate`, `jti`/`id`, `iss`/`issuer`, `sub`/the subject's `id` say one value
 * each) and stores it as a W3cJwtVerifiableCredential.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ClaimFormat, W3cJwtVerifiableCredential } from '@credo-ts/core'
import { CredoHolder } from '../helpers/credo-holder.js'
import { HttpsFront } from '../helpers/https-front.js'
import { closeHttpsIssuer, makeOffer } from '../helpers/https-issuer.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Membership',
  version: '1',
  attributes: [
    { name: 'member', data_type: 'string', required: true },
    { name: 'level', data_type: 'number' },
  ],
  anonymous_credentials: false,
}
const OFFER = { credential_type: 'Membership', attributes: { member: 'Ada', level: 3 }, format: 'jwt_vc_json' }

describe('Credo 0.6 holder receives jwt_vc_json over OpenID4VCI', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string
  let holder: CredoHolder

  before(async () => {
    front = await HttpsFront.open()
    // Credo checks each @context URL with validator.js isURL, which refuses a host without a
    // top-level domain (localhost); the front's certificate also names 127.0.0.1, a host it takes.
    t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin.replace('//localhost:', '//127.0.0.1:') } })
    front.serve(t.app)
    await issuer.setUp(t.app, 'Club')
    schemaId = await issuer.schema(t.app, SCHEMA)
    holder = await CredoHolder.create()
  })
  after(async () => {
    await holder.shutdown()
    await closeHttpsIssuer({ front, t })
  })

  const receive = async (body: Json) => {
    const created = await makeOffer(t, issuer, { ...OFFER, schema_id: schemaId }, body)
    return holder.receive(created.credential_offer_uri)
  }

  it('verifies and stores one with an expiry; the dates and ids it holds are the JWT claims', async () => {
    // A template's validity gives the credential an expiry (an offer names no date of its own).
    const yearly = { name: 'Yearly', credential_type: 'Membership', schema_id: schemaId, validity_days: 365 }
    const template = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/templates`, issuer.token, yearly)
    assert.equal(template.statusCode, 201, template.body)
    const record = await receive({ template_id: template.json().template.id })

    const stored = await holder.agent.w3cCredentials.getById(record.id)
    const credential = stored.firstCredential
    assert.ok(credential instanceof W3cJwtVerifiableCredential)
    assert.equal(credential.claimFormat, ClaimFormat.JwtVc)
    const payload = credential.jwt.payload
    const vc = payload.additionalClaims.vc as Json
    const signing = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/signing`, issuer.token)).json()
    assert.match(signing.signing_did, /^did:web:127\.0\.0\.1%3A\d+:issuers:/)
    assert.equal(credential.issuerId, signing.signing_did)
    assert.equal(payload.iss, vc.issuer)
    assert.equal(payload.sub, holder.did)
    assert.deepEqual(credential.credentialSubjectIds, [holder.did])
    assert.equal(credential.id, payload.jti)
    assert.equal(vc.id, payload.jti)
    assert.equal(Date.parse(vc.issuanceDate) / 1000, payload.nbf)
    assert.equal(Date.parse(vc.expirationDate) / 1000, payload.exp)
    assert.equal(vc.credentialSubject.member, 'Ada')
    // The service's record is the credential Credo holds.
    const issued = await callAs(
      t.app,
      'GET',
      `/api/issuer/${issuer.did}/credentials/${encodeURIComponent(credential.id!)}`,
      issuer.token,
    )
    assert.equal(issued.statusCode, 200, issued.body)
    assert.equal(issued.json().credential.jwt, credential.serializedJwt)

    // Credo's verification is a real one: the same JWT with a changed claim fails its signature check.
    // (Credo reads no status of a JWT VC: "not supported", so it is not asked to.)
    const verify = (jwt: string) =>
      holder.agent.w3cCredentials.verifyCredential({ credential: jwt, verifyCredentialStatus: false })
    const valid = await verify(credential.serializedJwt)
    assert.equal(valid.isValid, true, valid.error?.message)
    const [h, p, s] = credential.serializedJwt.split('.') as [string, string, string]
    const forged = JSON.parse(Buffer.from(p, 'base64url').toString())
    forged.vc.credentialSubject.member = 'Mallory'
    const tampered = `${h}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${s}`
    const refused = await verify(tampered)
    assert.equal(refused.isValid, false)
    assert.equal(refused.validations.signature?.isValid, false)
  })

  it('verifies and stores one without an expiry', async () => {
    const record = await receive({})
    const credential = record.firstCredential as W3cJwtVerifiableCredential
    assert.equal(credential.jwt.payload.exp, undefined)
    assert.equal(credential.jwt.payload.sub, holder.did)
    assert.equal((await holder.agent.w3cCredentials.getAll()).length, 2)
  })
})
