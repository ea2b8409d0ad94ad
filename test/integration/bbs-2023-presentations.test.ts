/**
 * bbs-2023 derived credentials through the SPEC's presentation flow, over HTTP only: a verifier's
 * request (POST /api/verifier/requests) → the holder's inbox → the holder derives a
 * selective-disclosure proof (POST /api/wallet/:did/credentials/:credential_id/derive) and puts
 * the derived credential, a JSON object, in a presentation it signs on its own device: a VP-JWT
 * (nonce, aud) or a VCDM 2.0 presentation with an eddsa-rdfc-2022 proof made by
 * @digitalbazaar/vc's signPresentation (challenge = nonce, domain = verifier) → approve → the
 * verifier's verify. Real: the whole app and its worker pool; nothing is mocked.
 */
import assert from 'node:assert/strict'
import { sign as edSign } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context'
import { DataIntegrityProof } from '@digitalbazaar/data-integrity'
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context'
import { cryptosuite as rdfc } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite'
import { contexts as multikeyContexts } from '@digitalbazaar/multikey-context'
import * as vc from '@digitalbazaar/vc'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Degree bbs-2023 presentations',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'gpa', data_type: 'number', required: true },
    { name: 'birth_date', data_type: 'date' },
  ],
  // No Dock BBS companion signature: this is about the IETF BBS cryptosuite alone.
  anonymous_credentials: false,
}
const ATTRIBUTES = { given_name: 'Ada', gpa: 3.9, birth_date: '1815-12-10' }
const UNDISCLOSED = ['gpa', 'birth_date'] as const

type Envelope = 'vp-jwt' | 'data-integrity'
const ENVELOPES: Envelope[] = ['vp-jwt', 'data-integrity']

describe('bbs-2023 derived credentials in the spec presentation flow (request → inbox → approve → verify)', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  const thief = new DidClient()
  let holderToken: string
  let verifierToken: string
  let schemaId: string

  const contexts = new Map<string, unknown>([...credentialsContexts, ...dataIntegrityContexts, ...multikeyContexts])
  /**
   * The holder's own loader for signing a presentation (RDFC canonicalizes the credentials it holds
   * too): the context packages, and the schema context the service serves, fetched through inject.
   */
  const documentLoader = async (url: string) => {
    if (contexts.has(url)) return { contextUrl: null, documentUrl: url, document: structuredClone(contexts.get(url)) }
    assert.ok(url.startsWith(t.config.publicBaseUrl), `the holder's loader does not know ${url}`)
    const res = await t.app.inject({ method: 'GET', url: url.slice(t.config.publicBaseUrl.length) })
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
    return { contextUrl: null, documentUrl: url, document: res.json() }
  }

  /** The holder's Ed25519 key (the DidClient's, the one its did:key names) as a Data Integrity signer. */
  const holderSigner = () => ({
    id: `${holder.did}#${holder.did.slice('did:key:'.length)}`,
    algorithm: 'Ed25519',
    sign: async ({ data }: { data: Uint8Array }) => new Uint8Array(edSign(null, data, holder.privateKey)),
  })

  /** The holder's presentation of `credentials` for `request`, in either envelope, as presentation_jwt carries it. */
  const present = async (envelope: Envelope, request: Json, credentials: Json[]): Promise<string> => {
    if (envelope === 'vp-jwt') return signPresentation(holder, { aud: verifier.did, nonce: request.nonce, credentials })
    const presentation = vc.createPresentation({ verifiableCredential: credentials, holder: holder.did })
    const suite = new DataIntegrityProof({ signer: holderSigner(), cryptosuite: rdfc })
    const vp = await vc.signPresentation({
      presentation,
      suite,
      challenge: request.nonce,
      domain: verifier.did,
      documentLoader,
    })
    return JSON.stringify(vp)
  }

  const issue = async (): Promise<Json> => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      format: 'bbs-2023',
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: ATTRIBUTES,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().credential
  }
  const derive = async (id: string, pointers: string[]): Promise<Json> => {
    const res = await callAs(
      t.app,
      'POST',
      `/api/wallet/${holder.did}/credentials/${encodeURIComponent(id)}/derive`,
      holderToken,
      { pointers },
    )
    assert.equal(res.statusCode, 200, res.body)
    return res.json().credential
  }
  /** The request names the issuer (its login DID: the credential is signed by its hosted did:web) and the schema, which the derived proof always discloses. */
  const createRequest = async (requiredAttributes = ['given_name'], extra: Json = {}): Promise<Json> => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'DegreeCheck',
      required_credentials: [
        {
          credential_type: 'UniversityDegree',
          issuer_did: issuer.did,
          schema_id: schemaId,
          required_attributes: requiredAttributes,
        },
      ],
      purpose: 'Hiring',
      ...extra,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }
  /**
   * The whole round: the request into the holder's inbox through its QR payload, approved with the
   * presentation, then verified by the verifier with the same text.
   */
  const round = async (
    envelope: Envelope,
    credentials: Json[],
    ids: string[],
    requiredAttributes?: string[],
    extra?: Json,
  ): Promise<Json> => {
    const created = await createRequest(requiredAttributes, extra)
    const take = await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, {
      qr_code_data: created.qr_code_data,
    })
    assert.equal(take.statusCode, 201, take.body)
    const text = await present(envelope, created.request, credentials)
    const approved = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${created.request.id}/approve`,
      holderToken,
      { credential_ids: ids, presentation_jwt: text },
    )
    assert.equal(approved.statusCode, 201, approved.body)
    const presentation = approved.json().presentation
    assert.equal(presentation.prover_did, holder.did)
    assert.equal(presentation.verifier_did, verifier.did)
    const res = await callAs(t.app, 'POST', `/api/verifier/presentations/${presentation.id}/verify`, verifierToken, {
      presentation_jwt: text,
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }
  const errorsOf = (verified: Json) => (verified.verification_result.errors as string[]).join('; ')

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Uni')
    schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
  })
  after(() => t.close())

  for (const envelope of ENVELOPES) {
    it(`${envelope}: a derived proof disclosing given_name verifies; the disclosed claim is in credential_subjects, the undisclosed ones are not`, async () => {
      const record = await issue()
      const derived = await derive(record.id, ['/credentialSubject/given_name'])
      assert.match(derived.proof.proofValue, /^u2V0D/, 'a derived proof')
      assert.deepEqual(derived.credentialSubject, { id: holder.did, given_name: 'Ada' })

      const verified = await round(envelope, [derived], [record.id])
      const result = verified.verification_result
      assert.deepEqual(result.errors, [])
      assert.equal(result.is_valid, true)
      assert.equal(verified.status, 'verified')
      assert.equal(result.prover_did, holder.did)
      assert.equal(result.verifier_did, verifier.did)
      assert.equal(result.credential_subjects.length, 1)
      const subject = result.credential_subjects[0]
      assert.equal(subject.credential_id, record.id)
      assert.equal(subject.given_name, 'Ada')
      assert.ok(subject.type.includes('UniversityDegree'), JSON.stringify(subject))
      for (const name of UNDISCLOSED)
        assert.ok(!Object.hasOwn(subject, name), `${name} was not disclosed: ${JSON.stringify(subject)}`)
      assert.ok(
        !JSON.stringify(verified).includes(ATTRIBUTES.birth_date),
        'the undisclosed birth date appears nowhere in the answer',
      )
      // What the verifier lists as provided is what was disclosed.
      const listed = await callAs(t.app, 'GET', `/api/verifier/${verifier.did}/presentations`, verifierToken)
      const row = listed.json().presentations.find((p: Json) => p.id === verified.presentation.id)
      assert.deepEqual(row.provided_attributes, ['given_name'])
    })
  }

  it('a disclosed value changed after derivation fails with a signature error (both envelopes)', async () => {
    const record = await issue()
    const tampered = await derive(record.id, ['/credentialSubject/given_name'])
    tampered.credentialSubject.given_name = 'Eve'
    for (const envelope of ENVELOPES) {
      const verified = await round(envelope, [tampered], [record.id])
      assert.equal(verified.verification_result.is_valid, false, envelope)
      assert.equal(verified.status, 'failed')
      assert.ok(
        verified.verification_result.errors.some((e: string) =>
          /^credential 1: its bbs-2023 proof does not verify/.test(e),
        ),
        `${envelope}: ${errorsOf(verified)}`,
      )
      assert.deepEqual(
        verified.verification_result.credential_subjects,
        [],
        'nothing is read from a credential whose proof fails',
      )
    }
  })

  it('a credential its issuer revoked through the spec route fails with the revoked reason (a proof derived before the revocation)', async () => {
    const record = await issue()
    const derived = await derive(record.id, ['/credentialSubject/given_name'])
    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${record.id}/revoke`,
      issuer.token,
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    // The wallet refuses to derive from it now.
    const again = await callAs(
      t.app,
      'POST',
      `/api/wallet/${holder.did}/credentials/${encodeURIComponent(record.id)}/derive`,
      holderToken,
      { pointers: ['/credentialSubject/given_name'] },
    )
    assert.equal(again.statusCode, 409, again.body)
    for (const envelope of ENVELOPES) {
      const verified = await round(envelope, [derived], [record.id])
      assert.equal(verified.verification_result.is_valid, false, envelope)
      assert.ok(
        verified.verification_result.errors.includes(`credential 1 (${record.id}): it has been revoked by its issuer`),
        `${envelope}: ${errorsOf(verified)}`,
      )
      assert.ok(
        !verified.verification_result.errors.some((e: string) => /proof does not verify/.test(e)),
        'its proof still verifies',
      )
      assert.equal(verified.blockchain_verification.revoked, true, envelope)
    }
    // The status entry is mandatory, so signed over: pointing it at another bit to dodge the revocation breaks the proof.
    const dodged = structuredClone(derived)
    assert.equal(dodged.credentialStatus.type, 'BitstringStatusListEntry')
    dodged.credentialStatus.statusListIndex = String(Number(dodged.credentialStatus.statusListIndex) + 1)
    const verified = await round('vp-jwt', [dodged], [record.id])
    assert.equal(verified.verification_result.is_valid, false)
    assert.ok(
      verified.verification_result.errors.some((e: string) =>
        /^credential 1: its bbs-2023 proof does not verify/.test(e),
      ),
      errorsOf(verified),
    )
  })

  it('a request requiring an attribute the holder did not disclose fails naming it', async () => {
    const record = await issue()
    const derived = await derive(record.id, ['/credentialSubject/given_name'])
    for (const envelope of ENVELOPES) {
      const verified = await round(envelope, [derived], [record.id], ['given_name', 'gpa'])
      assert.equal(verified.verification_result.is_valid, false, envelope)
      assert.deepEqual(
        verified.verification_result.errors,
        ['required attribute "gpa" of UniversityDegree was not disclosed'],
        envelope,
      )
    }
    // A predicate on an undisclosed claim is not proven by a bbs-2023 proof (it has no range proofs).
    const predicate = await round('vp-jwt', [derived], [record.id], ['given_name'], {
      required_predicates: [{ credential_type: 'UniversityDegree', attribute: 'gpa', operator: '>=', value: 3 }],
    })
    assert.equal(predicate.verification_result.is_valid, false)
    assert.match(errorsOf(predicate), /predicate gpa >= 3 was not proven/)
    // Disclosing it too meets the request, predicate included.
    const both = await derive(record.id, ['/credentialSubject/given_name', '/credentialSubject/gpa'])
    const verified = await round('data-integrity', [both], [record.id], ['given_name', 'gpa'], {
      required_predicates: [{ credential_type: 'UniversityDegree', attribute: 'gpa', operator: '>=', value: 3 }],
    })
    assert.deepEqual(verified.verification_result.errors, [])
    assert.equal(verified.verification_result.credential_subjects[0].gpa, 3.9)
    assert.ok(!Object.hasOwn(verified.verification_result.credential_subjects[0], 'birth_date'))
  })

  it('the base proof itself (not derived) is refused with a message saying a derived proof is expected', async () => {
    const record = await issue()
    const base = JSON.parse(record.jwt)
    assert.match(base.proof.proofValue, /^u2V0C/, 'a base proof')
    for (const envelope of ENVELOPES) {
      const verified = await round(envelope, [base], [record.id])
      assert.equal(verified.verification_result.is_valid, false, envelope)
      const errors = errorsOf(verified)
      assert.ok(
        verified.verification_result.errors.some((e: string) =>
          /credential 1.*base proof.*a verifier is shown a proof derived from it/.test(e),
        ),
        `${envelope}: ${errors}`,
      )
      assert.match(errors, /missing required credential UniversityDegree/)
      assert.deepEqual(verified.verification_result.credential_subjects, [])
    }
  })

  it("another DID presenting the holder's derived credential (the verifier's direct submission) fails holder binding", async () => {
    const record = await issue()
    const derived = await derive(record.id, ['/credentialSubject/given_name'])
    const created = await createRequest()
    const vp = signPresentation(thief, { aud: verifier.did, nonce: created.request.nonce, credentials: [derived] })
    const submitted = await callAs(t.app, 'POST', '/api/verifier/presentations', verifierToken, {
      presentation_jwt: vp,
      request_id: created.request.id,
    })
    assert.equal(submitted.statusCode, 201, submitted.body)
    assert.equal(submitted.json().presentation.prover_did, thief.did)
    assert.deepEqual(submitted.json().presentation.credential_ids, [record.id], 'the derived credential names its id')
    const res = await callAs(
      t.app,
      'POST',
      `/api/verifier/presentations/${submitted.json().presentation.id}/verify`,
      verifierToken,
      { presentation_jwt: vp },
    )
    assert.equal(res.statusCode, 200, res.body)
    const result = res.json().verification_result
    assert.equal(result.is_valid, false)
    assert.ok(
      result.errors.includes(
        `credential 1 (${record.id}): it was issued to ${holder.did}, not to the holder ${thief.did}`,
      ),
      result.errors.join('; '),
    )
  })
})
