/**
 * Credo 0.6 (an independent holder agent, no Askar) receives the default format, `jwt_vc_json`,
 * over OpenID4VCI with a pre-authorized code from the service behind a real HTTPS front: it
 * resolves the issuer's did:web itself, verifies the JWT and its VCDM 1.1 JWT mapping (§6.3.1:
 * `nbf`/`issuanceDate`, `exp`/`expirationDate`, `jti`/`id`, `iss`/`issuer`, `sub`/subject id are
 * one value each), and stores it as a W3cJwtVerifiableCredential.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ClaimFormat, W3cJwtVerifiableCredential } from '@credo-ts/core'
import { CredoHolder } from '../helpers/credo-holder.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeHttpsIssuer, makeOffer, openHttpsIssuer } from '../helpers/https-issuer.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import type { TestApp } from '../helpers/test-app.js'

const SCHEMA = { name: 'Membership', version: '1', attributes: [{ name: 'member', data_type: 'string', required: true }, { name: 'level', data_type: 'number' }], anonymous_credentials: false }

describe('Credo 0.6 holder receives jwt_vc_json over OpenID4VCI', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string
  let holder: CredoHolder

  before(async () => {
    ;({ front, t, schemaId } = await openHttpsIssuer(issuer, 'Club', SCHEMA))
    holder = await CredoHolder.create()
  })
  after(async () => {
    await holder.shutdown()
    await closeHttpsIssuer({ front, t })
  })

  const receive = async (body: Record<string, unknown>) => {
    const created = await makeOffer(t, issuer, { credential_type: 'Membership', schema_id: schemaId, attributes: { member: 'Ada', level: 3 }, format: 'jwt_vc_json' }, body)
    return holder.receive(created.credential_offer_uri)
  }

  it('verifies and stores one with an expiry, its dates and ids as the JWT claims say', async () => {
    // A template's validity gives the credential an expiry (offers name no date of their own).
    const template = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/templates`, issuer.token, { name: 'Yearly', credential_type: 'Membership', schema_id: schemaId, validity_days: 365 })
    assert.equal(template.statusCode, 201, template.body)
    const record = await receive({ template_id: template.json().template.id })
    const stored = await holder.agent.w3cCredentials.getById(record.id)
    const credential = stored.firstCredential
    assert.ok(credential instanceof W3cJwtVerifiableCredential)
    assert.equal(credential.claimFormat, ClaimFormat.JwtVc)
    const payload = credential.jwt.payload
    const signing = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/signing`, issuer.token)).json()
    assert.equal(payload.iss, signing.signing_did)
    assert.equal(credential.issuerId, signing.signing_did)
    assert.equal(payload.sub, holder.did)
    assert.equal(credential.credentialSubjectIds[0], holder.did)
    assert.equal(credential.id, payload.additionalClaims.jti ?? credential.jwt.payload.jti)
    // The same instants in the JWT and in the vc claim (whole seconds).
    const vc = payload.additionalClaims.vc as Record<string, unknown>
    assert.equal(Date.parse(vc.issuanceDate as string) / 1000, payload.nbf)
    assert.equal(Date.parse(vc.expirationDate as string) / 1000, payload.exp)
    assert.equal((credential.credentialSubject as unknown as { claims: Record<string, unknown> }).claims?.member ?? (vc.credentialSubject as Record<string, unknown>).member, 'Ada')
    // The service's record is the one Credo holds.
    const issued = await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/credentials/${encodeURIComponent(credential.id!)}`, issuer.token)
    assert.equal(issued.statusCode, 200, issued.body)
    assert.equal(issued.json().credential.jwt, credential.serializedJwt)
  })

  it('verifies and stores one without an expiry', async () => {
    const record = await receive({})
    const credential = record.firstCredential as W3cJwtVerifiableCredential
    assert.equal(credential.jwt.payload.exp, undefined)
    assert.equal((await holder.agent.w3cCredentials.getAll()).length, 2)
  })
})
