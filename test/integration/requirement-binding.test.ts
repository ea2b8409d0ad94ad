import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { foreignCredential } from '../helpers/wallet-fixtures.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Identity',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'age', data_type: 'number', required: true },
  ],
}

/**
 * Each requirement of a request is met by one credential that satisfies all of its constraints
 * (issue 20, item 1): a holder whose issued credential says 16 cannot meet `age >= 18` with a
 * second credential it signed itself, or one from an issuer the request does not name, or by
 * taking the disclosed attributes from one credential and the predicate from another, through
 * wallet approval or direct submission, with JWT-VCs or BBS proofs.
 */
describe('presentation requirements: one credential meets all of a requirement', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const otherIssuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  let holderToken: string
  let verifierToken: string
  let schemaId: string
  let otherSchemaId: string
  type Held = { id: string; jwt: string }
  let minor: Held
  let adult: Held
  let selfSigned: Held
  let fromOtherIssuer: Held

  const issue = async (by: IssuerActor, schema: string, age: number): Promise<Held> => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${by.did}/issue`, by.token, {
      credential_type: 'Identity',
      schema_id: schema,
      subject_did: holder.did,
      attributes: { given_name: 'Ada', age },
    })
    assert.equal(res.statusCode, 201, res.body)
    return { id: res.json().credential.id, jwt: res.json().credential.jwt }
  }
  const createRequest = async (extra: Json = {}): Promise<Json> => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'AgeCheck',
      required_credentials: [
        { credential_type: 'Identity', issuer_did: issuer.did, required_attributes: ['given_name'] },
      ],
      required_predicates: [{ attribute: 'age', operator: '>=', value: 18 }],
      purpose: 'Age check',
      ...extra,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }
  const verify = async (presentation: Json, jwt: string): Promise<Json> => {
    const res = await callAs(t.app, 'POST', `/api/verifier/presentations/${presentation.id}/verify`, verifierToken, {
      presentation_jwt: jwt,
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().verification_result
  }
  /** Through the wallet: inbox, approval with the credentials declared, then the verifier's check. */
  const approveAndVerify = async (created: Json, ids: string[], items: unknown[]): Promise<Json> => {
    assert.equal(
      (
        await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, {
          request_id: created.request.id,
        })
      ).statusCode,
      201,
    )
    const vp = signPresentation(holder, { aud: verifier.did, nonce: created.request.nonce, credentials: items })
    const approved = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${created.request.id}/approve`,
      holderToken,
      { credential_ids: ids, presentation_jwt: vp },
    )
    assert.equal(approved.statusCode, 201, approved.body)
    return verify(approved.json().presentation, vp)
  }
  /** Submitted directly by the holder, answering the request. */
  const submitAndVerify = async (created: Json, items: unknown[]): Promise<Json> => {
    const vp = signPresentation(holder, { aud: verifier.did, nonce: created.request.nonce, credentials: items })
    const submitted = await callAs(t.app, 'POST', '/api/verifier/presentations', holderToken, {
      presentation_jwt: vp,
      request_id: created.request.id,
    })
    assert.equal(submitted.statusCode, 201, submitted.body)
    return verify(submitted.json().presentation, vp)
  }
  const derive = async (credentialId: string, created: Json, body: Json): Promise<Json> => {
    const res = await callAs(
      t.app,
      'POST',
      `/api/wallet/${holder.did}/credentials/${credentialId}/anonymous-proof`,
      holderToken,
      { nonce: created.request.nonce, verifier_did: verifier.did, ...body },
    )
    assert.equal(res.statusCode, 200, res.body)
    return res.json().proof
  }
  const invalid = (result: Json, expected: RegExp) => {
    assert.equal(result.is_valid, false, 'must not verify')
    assert.ok(
      result.errors.some((e: string) => expected.test(e)),
      result.errors.join('; '),
    )
  }

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Registry')
    await otherIssuer.setUp(t.app, 'Other registry')
    schemaId = await issuer.schema(t.app, SCHEMA)
    otherSchemaId = await issuer.schema(t.app, { ...SCHEMA, version: '2.0' })
    const foreignSchema = await otherIssuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
    minor = await issue(issuer, schemaId, 16)
    adult = await issue(issuer, schemaId, 20)
    fromOtherIssuer = await issue(otherIssuer, foreignSchema, 30)
    // A credential the holder signed itself, of the required type, saying what it likes (no jti,
    // so no credential id to declare at approval).
    const jwt = foreignCredential(holder, {
      subject: holder.did,
      type: 'Identity',
      attributes: { given_name: 'Ada', age: 99 },
      jti: null,
    })
    const imported = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/credentials/import`, holderToken, {
      credential_jwt: jwt,
    })
    assert.equal(imported.statusCode, 201, imported.body)
    selfSigned = { id: imported.json().credential.id, jwt }
  })
  after(() => t.close())

  it("refuses a predicate met only by a self-signed credential beside the issuer's, through approval and direct submission", async () => {
    for (const predicates of [
      [{ attribute: 'age', operator: '>=', value: 18 }],
      [{ attribute: 'age', operator: '>=', value: 18, credential_type: 'Identity' }],
    ]) {
      const viaWallet = await approveAndVerify(
        await createRequest({ required_predicates: predicates }),
        [minor.id, selfSigned.id],
        [minor.jwt, selfSigned.jwt],
      )
      invalid(viaWallet, /age >= 18/)
      const direct = await submitAndVerify(await createRequest({ required_predicates: predicates }), [
        minor.jwt,
        selfSigned.jwt,
      ])
      invalid(direct, /age >= 18/)
      // The self-signed one first makes no difference.
      invalid(
        await submitAndVerify(await createRequest({ required_predicates: predicates }), [selfSigned.jwt, minor.jwt]),
        /age >= 18/,
      )
    }
    // The message says why: the credential that meets it is not one the request accepts.
    const result = await submitAndVerify(await createRequest(), [minor.jwt, selfSigned.jwt])
    invalid(
      result,
      new RegExp(
        `age >= 18 was proven only on a credential the request does not accept \\(issued by ${holder.did}, not Identity from ${issuer.did}\\)`,
      ),
    )
    // The issuer's credential alone is refused; an adult's is accepted (the check is not a blanket refusal).
    invalid(await submitAndVerify(await createRequest(), [minor.jwt]), /age >= 18 is not satisfied/)
    const good = await submitAndVerify(await createRequest(), [adult.jwt, selfSigned.jwt])
    assert.deepEqual(good.errors, [])
    assert.equal(good.is_valid, true)
  })

  it('refuses the predicate met by a credential of an issuer the request does not name, typed or not', async () => {
    invalid(
      await submitAndVerify(await createRequest(), [minor.jwt, fromOtherIssuer.jwt]),
      new RegExp(
        `not accept \\(issued by did:web:\\S+ \\(issuer ${otherIssuer.did}\\), not Identity from ${issuer.did}\\)`,
      ),
    )
    // A predicate of a type no required credential has is bound to the issuers the request names.
    const typed = {
      required_predicates: [{ attribute: 'age', operator: '>=', value: 18, credential_type: 'Identity' }],
      required_credentials: [{ credential_type: 'Membership', issuer_did: issuer.did }],
    }
    invalid(
      await submitAndVerify(await createRequest(typed), [fromOtherIssuer.jwt, selfSigned.jwt]),
      new RegExp(
        `age >= 18 was proven only on a credential the request does not accept \\(issued by (did:key:\\w+|did:web:\\S+ \\(issuer did:key:\\w+\\)), which the request does not name\\)`,
      ),
    )
  })

  it('refuses a required attribute disclosed by one credential and the predicate proven by another (a BBS proof and a JWT-VC)', async () => {
    // The 16-year-old's JWT-VC discloses the name; a BBS proof of the adult's credential proves
    // the age but discloses nothing: neither credential meets the requirement alone.
    const created = await createRequest()
    const ageOnly = await derive(adult.id, created, {
      reveal: [],
      predicates: [{ attribute: 'age', operator: '>=', value: 18 }],
    })
    invalid(
      await approveAndVerify(created, [minor.id, adult.id], [minor.jwt, ageOnly]),
      /age >= 18 was proven only on a credential the request does not accept \(required attribute "given_name" of Identity was not disclosed\)/,
    )
    // The same proof disclosing the name as well meets it alone.
    const whole = await createRequest()
    const both = await derive(adult.id, whole, {
      reveal: ['given_name'],
      predicates: [{ attribute: 'age', operator: '>=', value: 18 }],
    })
    const accepted = await approveAndVerify(whole, [adult.id], [both])
    assert.deepEqual(accepted.errors, [])
    assert.equal(accepted.is_valid, true)
  })

  it('refuses a required attribute or schema met by the wrong credential', async () => {
    // The name comes from the self-signed credential, which the issuer's credential does not disclose.
    const nameless = await createRequest({
      required_credentials: [
        { credential_type: 'Identity', issuer_did: issuer.did, required_attributes: ['nationality'] },
      ],
      required_predicates: [],
    })
    const withNationality = foreignCredential(holder, {
      subject: holder.did,
      type: 'Identity',
      attributes: { nationality: 'GB' },
    })
    invalid(
      await submitAndVerify(nameless, [adult.jwt, withNationality]),
      /required attribute "nationality" of Identity was not disclosed/,
    )
    // A schema the request names: the same issuer's credential under another schema does not do.
    const bySchema = (id: string) =>
      createRequest({
        required_credentials: [{ credential_type: 'Identity', issuer_did: issuer.did, schema_id: id }],
        required_predicates: [],
      })
    invalid(
      await submitAndVerify(await bySchema(otherSchemaId), [adult.jwt]),
      new RegExp(`missing required credential Identity from ${issuer.did} of schema ${otherSchemaId}`),
    )
    const right = await submitAndVerify(await bySchema(schemaId), [adult.jwt])
    assert.deepEqual(right.errors, [])
  })
})
