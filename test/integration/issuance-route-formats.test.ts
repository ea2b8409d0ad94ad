/**
 * `format` on every issuance route besides issue (docs/formats.md): an offer stores it and the
 * request redeeming it is approved in it; a template may fix it; a holder's credential request
 * may ask for it and its approval issues in it. Unknown formats are refused when the offer,
 * template or request is made (400 naming `format`), not later at issuance. Without `format`
 * the behaviour is as before (jwt_vc_json). Other formats are built elsewhere: only jwt_vc_json
 * and an unknown id are used here.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Membership',
  version: '1',
  attributes: [{ name: 'member_name', data_type: 'string', required: true }],
  anonymous_credentials: false,
}
const UNKNOWN = 'ldp_vc_unknown'

describe('format on offers, templates and credential requests', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  let holderToken: string
  let schemaId: string

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Club')
    schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
  })
  after(() => t.close())

  const asIssuer = (method: 'GET' | 'POST' | 'PUT', path: string, body?: object) =>
    callAs(t.app, method, `/api/issuer/${issuer.did}${path}`, issuer.token, body)
  const askFor = (body: object) =>
    callAs(t.app, 'POST', '/api/wallet/credential-request', holderToken, { issuer_did: issuer.did, ...body })
  const approve = async (requestId: string) => {
    const ch = await callAs(
      t.app,
      'GET',
      `/api/wallet/issuer/${issuer.did}/request/${requestId}/challenge`,
      issuer.token,
    )
    assert.equal(ch.statusCode, 200, ch.body)
    const res = await callAs(
      t.app,
      'POST',
      `/api/wallet/issuer/${issuer.did}/request/${requestId}/approve`,
      issuer.token,
      { signature: issuer.sign(ch.json().challenge) },
    )
    assert.equal(res.statusCode, 200, res.body)
    return res.json().credential
  }
  /** The stored record's format, and the issued JWT read as jwt_vc_json (VCDM 1.1 `vc` claim) with jose. */
  const assertJwtVcJson = async (credential: Json) => {
    assert.equal(credential.credential.format, 'jwt_vc_json')
    const row = await t.deps.database.db
      .selectFrom('credentials')
      .select(['format', 'jwt'])
      .where('id', '=', credential.id)
      .executeTakeFirstOrThrow()
    assert.equal(row.format, 'jwt_vc_json')
    assert.equal(decodeProtectedHeader(row.jwt).typ, 'JWT')
    assert.equal((decodeJwt(row.jwt).vc as Json).credentialSubject.id, holder.did)
  }
  const refusedFormat = (res: { statusCode: number; json: () => Json }) => {
    assert.equal(res.statusCode, 400)
    assert.match(
      res.json().message,
      new RegExp(`^format "${UNKNOWN}" is not one this service issues \\(.*jwt_vc_json.*\\)$`),
    )
    assert.equal(res.json().details?.field, 'format')
  }

  it('an offer stores its format, and the request redeeming it is issued in it', async () => {
    const res = await asIssuer('POST', '/offers', {
      credential_type: 'Membership',
      schema_id: schemaId,
      format: 'jwt_vc_json',
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().offer.format, 'jwt_vc_json')
    const listed = (await asIssuer('GET', '/offers')).json().data.find((o: Json) => o.id === res.json().offer.id)
    assert.equal(listed.format, 'jwt_vc_json')
    const asked = await askFor({ offer_id: res.json().offer.id, attributes: { member_name: 'Hal' } })
    assert.equal(asked.statusCode, 201, asked.body)
    assert.equal(asked.json().request.format, 'jwt_vc_json')
    await assertJwtVcJson(await approve(asked.json().request.id))
    // Without format: null on the offer, and the default at issuance, as before.
    const plain = await asIssuer('POST', '/offers', { credential_type: 'Membership', schema_id: schemaId })
    assert.equal(plain.json().offer.format, null)
    const redeemed = await askFor({ offer_id: plain.json().offer.id, attributes: { member_name: 'Ida' } })
    assert.equal(redeemed.json().request.format, null)
    await assertJwtVcJson(await approve(redeemed.json().request.id))
  })

  it('refuses an unknown format when the offer is made, or asked for on an offer before a use of it is taken', async () => {
    refusedFormat(
      await asIssuer('POST', '/offers', { credential_type: 'Membership', schema_id: schemaId, format: UNKNOWN }),
    )
    assert.equal(
      (await asIssuer('POST', '/offers', { credential_type: 'Membership', schema_id: schemaId, format: '' }))
        .statusCode,
      400,
    )
    const offer = (
      await asIssuer('POST', '/offers', { credential_type: 'Membership', schema_id: schemaId, format: 'jwt_vc_json' })
    ).json().offer
    // An unknown format is refused before the offer's use is taken.
    refusedFormat(await askFor({ offer_id: offer.id, format: UNKNOWN }))
    assert.equal((await asIssuer('GET', '/offers')).json().data.find((o: Json) => o.id === offer.id).uses, 0)
  })

  it('a template fixes a format: issuance from it is in it, another format is refused, unknown ones at creation', async () => {
    const created = await asIssuer('POST', '/templates', {
      name: 'Fixed',
      credential_type: 'Membership',
      schema_id: schemaId,
      format: 'jwt_vc_json',
    })
    assert.equal(created.statusCode, 201, created.body)
    const template = created.json().template
    assert.equal(template.format, 'jwt_vc_json')
    assert.equal((await asIssuer('GET', `/templates/${template.id}`)).json().template.format, 'jwt_vc_json')
    const issued = await asIssuer('POST', '/issue', {
      credential_type: 'Membership',
      schema_id: schemaId,
      template_id: template.id,
      subject_did: holder.did,
      attributes: { member_name: 'Jo' },
    })
    assert.equal(issued.statusCode, 201, issued.body)
    await assertJwtVcJson(issued.json().credential)
    const named = await asIssuer('POST', '/issue', {
      credential_type: 'Membership',
      schema_id: schemaId,
      template_id: template.id,
      subject_did: holder.did,
      attributes: { member_name: 'Jo' },
      format: 'jwt_vc_json',
    })
    assert.equal(named.statusCode, 201, named.body)
    // A format the template does not fix is refused, known or not; an offer from it inherits its format.
    const other = await asIssuer('POST', '/issue', {
      credential_type: 'Membership',
      schema_id: schemaId,
      template_id: template.id,
      subject_did: holder.did,
      attributes: { member_name: 'Jo' },
      format: UNKNOWN,
    })
    assert.equal(other.statusCode, 400)
    assert.equal(other.json().details?.field, 'format')
    const offer = await asIssuer('POST', '/offers', {
      credential_type: 'Membership',
      schema_id: schemaId,
      template_id: template.id,
    })
    assert.equal(offer.json().offer.format, 'jwt_vc_json')

    refusedFormat(
      await asIssuer('POST', '/templates', {
        name: 'Bad',
        credential_type: 'Membership',
        schema_id: schemaId,
        format: UNKNOWN,
      }),
    )
    refusedFormat(await asIssuer('PUT', `/templates/${template.id}`, { format: UNKNOWN }))
    // Unfixed again (null): issuance from it takes the default, as before.
    const cleared = await asIssuer('PUT', `/templates/${template.id}`, { format: null })
    assert.equal(cleared.statusCode, 200, cleared.body)
    assert.equal(cleared.json().template.format, null)
    const plain = await asIssuer('POST', '/issue', {
      credential_type: 'Membership',
      schema_id: schemaId,
      template_id: template.id,
      subject_did: holder.did,
      attributes: { member_name: 'Jo' },
    })
    await assertJwtVcJson(plain.json().credential)
  })

  it("a holder's credential request asks for a format, and its approval issues in it; unknown formats are refused at once", async () => {
    const asked = await askFor({
      schema_id: schemaId,
      credential_type: 'Membership',
      attributes: { member_name: 'Kim' },
      format: 'jwt_vc_json',
    })
    assert.equal(asked.statusCode, 201, asked.body)
    assert.equal(asked.json().request.format, 'jwt_vc_json')
    const inbox = await asIssuer('GET', `/requests/${asked.json().request.id}`)
    assert.equal(inbox.json().request.format, 'jwt_vc_json')
    await assertJwtVcJson(await approve(asked.json().request.id))
    refusedFormat(await askFor({ schema_id: schemaId, credential_type: 'Membership', format: UNKNOWN }))
    const pending = (
      await callAs(t.app, 'GET', `/api/wallet/${holder.did}/credential-requests?status=pending`, holderToken)
    ).json().data
    assert.deepEqual(pending, [])
  })
})
