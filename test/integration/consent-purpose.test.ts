import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { callAs, IssuerActor, JWT_DEGREE_SCHEMA } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'

// Real: the app over HTTP (app.inject), the database of the engine under test, the holder flow
// from the verifier's request to its verification. Nothing swapped.

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

describe(`consents are scoped by purpose in verification (${TEST_ENGINE})`, () => {
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Uni')
    schemaId = await issuer.schema(t.app, JWT_DEGREE_SCHEMA)
  })
  after(() => t.close())

  /** A fresh holder with a credential, and a fresh verifier: consents of other tests stay out. */
  const pair = async () => {
    const holder = new DidClient()
    const verifier = new DidClient()
    const hToken = await holder.login(t.app)
    const vToken = await verifier.login(t.app)
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { given_name: 'Ada', gpa: 3.5 },
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const credential = { id: issued.json().credential.id as string, jwt: issued.json().credential.jwt as string }

    const grant = async (purpose: string, extra: Json = {}): Promise<Json> => {
      const res = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents`, hToken, {
        verifier_did: verifier.did,
        purpose,
        ...extra,
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().consent
    }
    const revoke = async (id: string) =>
      assert.equal(
        (await callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents/${id}/revoke`, hToken)).statusCode,
        200,
      )
    const readConsent = async (id: string): Promise<Json> =>
      (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/consents/${id}`, hToken)).json().consent
    const verify = async (presentationId: string, jwt: string): Promise<Json> => {
      const res = await callAs(t.app, 'POST', `/api/verifier/presentations/${presentationId}/verify`, vToken, {
        presentation_jwt: jwt,
      })
      assert.equal(res.statusCode, 200, res.body)
      return res.json()
    }
    /** The verifier asks for the degree with this purpose; the holder approves; the verifier verifies. */
    const presentFor = async (purpose: string): Promise<Json> => {
      const created = await callAs(t.app, 'POST', '/api/verifier/requests', vToken, {
        verifier_did: verifier.did,
        presentation_type: 'DegreeCheck',
        required_credentials: [{ credential_type: 'UniversityDegree', issuer_did: issuer.did }],
        purpose,
      })
      assert.equal(created.statusCode, 201, created.body)
      const request = created.json().request
      assert.equal(
        (await callAs(t.app, 'POST', '/api/wallet/presentation-requests', hToken, { request_id: request.id }))
          .statusCode,
        201,
      )
      const jwt = signPresentation(holder, { aud: verifier.did, nonce: request.nonce, credentials: [credential.jwt] })
      const approved = await callAs(t.app, 'POST', `/api/wallet/presentation-requests/${request.id}/approve`, hToken, {
        credential_ids: [credential.id],
        presentation_jwt: jwt,
      })
      assert.equal(approved.statusCode, 201, approved.body)
      return verify(approved.json().presentation.id, jwt)
    }
    const storedConsentOf = async (presentationId: string) =>
      (
        await t.deps.database.db
          .selectFrom('presentations')
          .select('consent_id')
          .where('id', '=', presentationId)
          .executeTakeFirstOrThrow()
      ).consent_id
    return {
      holder,
      verifier,
      hToken,
      vToken,
      credential,
      grant,
      revoke,
      readConsent,
      verify,
      presentFor,
      storedConsentOf,
    }
  }
  const errorsOf = (result: Json) => (result.verification_result.errors as string[]).join('; ')

  it('a consent withdrawn for one purpose does not fail a request of the same verifier for another purpose', async () => {
    const p = await pair()
    const hiring = await p.grant('Hiring')
    await p.revoke(hiring.id)

    // No consent at all for Audit: the holder's approval stands, as with a verifier never consented to.
    const audit = await p.presentFor('Audit')
    assert.equal(audit.verification_result.is_valid, true, errorsOf(audit))
    assert.deepEqual(audit.verification_result.errors, [])
    assert.equal(audit.status, 'verified')
    assert.equal(audit.consent_valid, false)
    assert.equal(audit.auto_approved, false)

    // A valid consent for Audit, older than the revoked Hiring one, decides for Audit.
    const p2 = await pair()
    const auditConsent = await p2.grant('Audit')
    await p2.revoke((await p2.grant('Hiring')).id)
    const withConsent = await p2.presentFor('Audit')
    assert.equal(withConsent.verification_result.is_valid, true, errorsOf(withConsent))
    assert.equal(withConsent.consent_valid, true)
    assert.equal(await p2.storedConsentOf(withConsent.presentation.id), auditConsent.id)

    // The withdrawal still fails its own purpose.
    const refused = await p.presentFor('Hiring')
    assert.equal(refused.verification_result.is_valid, false)
    assert.equal(refused.consent_valid, false)
    assert.ok(
      refused.verification_result.errors.some((e: string) => /^consent: revoked by the holder/.test(e)),
      errorsOf(refused),
    )
  })

  it('a consent for one purpose does not serve a request for another', async () => {
    const p = await pair()
    const hiring = await p.grant('Hiring')
    const audit = await p.presentFor('Audit')
    assert.equal(audit.verification_result.is_valid, true, errorsOf(audit))
    assert.equal(audit.consent_valid, false, 'the Hiring consent is not a consent for Audit')
    assert.equal(audit.auto_approved, false)
    assert.equal(await p.storedConsentOf(audit.presentation.id), null)

    const matching = await p.presentFor('Hiring')
    assert.equal(matching.consent_valid, true)
    assert.equal(matching.auto_approved, true)
    assert.equal(await p.storedConsentOf(matching.presentation.id), hiring.id)
  })

  it('spends a one-time consent only on a request of its own purpose', async () => {
    const p = await pair()
    const once = await p.grant('Onboarding', { expiration_policy: 'one_time_use' })
    const other = await p.presentFor('Marketing')
    assert.equal(other.verification_result.is_valid, true, errorsOf(other))
    assert.equal(other.consent_valid, false)
    const untouched = await p.readConsent(once.id)
    assert.equal(untouched.used_by, null, 'not spent by another purpose')
    assert.equal(untouched.status, 'active')

    const own = await p.presentFor('Onboarding')
    assert.equal(own.verification_result.is_valid, true, errorsOf(own))
    assert.equal(own.consent_valid, true)
    assert.equal((await p.readConsent(once.id)).used_by, own.presentation.id)
    // Used up for Onboarding; other purposes are as before.
    const again = await p.presentFor('Onboarding')
    assert.equal(again.verification_result.is_valid, false)
    assert.ok(
      again.verification_result.errors.some((e: string) => /^consent: the one-time consent was already used/.test(e)),
      errorsOf(again),
    )
    assert.equal((await p.presentFor('Marketing')).verification_result.is_valid, true)
  })

  it('consults no consent for a presentation sent without a request: it states no purpose', async () => {
    const p = await pair()
    await p.grant('Hiring')
    await p.revoke((await p.grant('Audit')).id)
    const jwt = signPresentation(p.holder, { aud: p.verifier.did, nonce: 'direct-1', credentials: [p.credential.jwt] })
    const submitted = await callAs(t.app, 'POST', '/api/verifier/presentations', p.hToken, {
      presentation_jwt: jwt,
      presentation_type: 'Hiring',
    })
    assert.equal(submitted.statusCode, 201, submitted.body)
    const result = await p.verify(submitted.json().presentation.id, jwt)
    // Neither the valid Hiring consent (whatever presentation_type the submitter names) nor the revoked Audit one decides.
    assert.equal(result.verification_result.is_valid, true, errorsOf(result))
    assert.equal(result.consent_valid, false)
    assert.equal(result.auto_approved, false)
  })
})
