import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

// 9 meta slots + 4 attributes: the 13-message credential the method choice was measured on.
const SCHEMA = {
  name: 'Identity',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'nationality', data_type: 'string', required: true },
    { name: 'age', data_type: 'number', required: true },
    { name: 'birth_date', data_type: 'date', required: true },
  ],
}
const ATTRS = { given_name: 'Ada', nationality: 'GB', age: 36, birth_date: '1990-12-10' }
const days = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000

/**
 * Real app, real database (PGlite or PostgreSQL), real BBS worker pool: the proofs are real
 * BBS proofs with real range proofs, so this suite derives only two (one with two predicates,
 * one with none) and reuses them; every refusal the route can decide before proving costs no crypto.
 */
describe('anonymous proofs: derivation over HTTP, verification inside a VP-JWT', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  const stranger = new DidClient()
  let holderToken: string
  let verifierToken: string
  let strangerToken: string
  let credentialId: string
  let jwtOnlyId: string
  let withdrawnId: string
  let mainProof: Json
  let mainRequest: Json

  const proofUrl = (id: string, did = holder.did) => `/api/wallet/${did}/credentials/${id}/anonymous-proof`
  const derive = (body: Json, id = credentialId, token = holderToken, did = holder.did) =>
    callAs(t.app, 'POST', proofUrl(id, did), token, body)
  const createRequest = async (extra: Json = {}): Promise<Json> => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'AgeCheck',
      required_credentials: [
        { credential_type: 'Identity', issuer_did: issuer.did, required_attributes: ['nationality'] },
      ],
      required_predicates: [
        { attribute: 'age', operator: '>=', value: 18 },
        { attribute: 'birth_date', operator: '<=', value: '2008-11-22' },
      ],
      purpose: 'Age check',
      ...extra,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }
  /** The holder answers the request with a VP-JWT holding these derived proofs; the verifier verifies it. */
  const presentAndVerify = async (created: Json, proofs: Json[]): Promise<Json> => {
    const take = await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, {
      request_id: created.request.id,
    })
    assert.equal(take.statusCode, 201, take.body)
    const vp = signPresentation(holder, { aud: verifier.did, nonce: created.request.nonce, credentials: proofs })
    const approved = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${created.request.id}/approve`,
      holderToken,
      { credential_ids: [credentialId], presentation_jwt: vp },
    )
    assert.equal(approved.statusCode, 201, approved.body)
    return verifyPresentation(approved.json().presentation.id, vp)
  }
  const verifyPresentation = async (id: string, vp: string): Promise<Json> => {
    const res = await callAs(t.app, 'POST', `/api/verifier/presentations/${id}/verify`, verifierToken, {
      presentation_jwt: vp,
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Registry')
    const schemaId = await issuer.schema(t.app, SCHEMA)
    const jwtOnlySchema = await issuer.schema(t.app, { ...SCHEMA, version: 'jwt-only', anonymous_credentials: false })
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
    strangerToken = await stranger.login(t.app)
    const issue = async (schema: string) => {
      const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
        credential_type: 'Identity',
        schema_id: schema,
        subject_did: holder.did,
        attributes: ATTRS,
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().credential.id as string
    }
    credentialId = await issue(schemaId)
    jwtOnlyId = await issue(jwtOnlySchema)
    withdrawnId = await issue(schemaId)
  })
  after(() => t.close())

  it('derives a proof that reveals one attribute and proves a number and a date predicate; the verifier accepts it in a VP-JWT', async () => {
    mainRequest = await createRequest()
    const res = await derive({
      reveal: ['nationality'],
      // The date bound as days since 1970-01-01 (DESIGN.md); the request states it as YYYY-MM-DD.
      predicates: [
        { attribute: 'age', operator: '>=', value: 18 },
        { attribute: 'birth_date', operator: '<=', value: days('2008-11-22') },
      ],
      nonce: mainRequest.request.nonce,
      verifier_did: verifier.did,
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().success, true)
    mainProof = res.json().proof
    assert.equal(mainProof.type, 'AnonymousCredentialProof')
    // The proof names the issuer's signing DID (its did:web here), the DID whose document holds the key.
    const signingDid = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/signing`, issuer.token)).json()
      .signing_did
    assert.match(signingDid, /^did:web:service\.test:issuers:/)
    assert.equal(mainProof.issuer, signingDid)
    assert.equal(mainProof.verification_method.split('#')[0], signingDid)
    assert.equal(mainProof.credential_type, 'Identity')
    assert.equal(mainProof.message_count, 13)
    assert.deepEqual(mainProof.revealed, { nationality: 'GB' })
    assert.deepEqual(mainProof.attributes, [
      ['age', 'number'],
      ['birth_date', 'date'],
      ['given_name', 'string'],
      ['nationality', 'string'],
    ])
    // Both bounds are statements of the one composite proof in proof_value: no separate proofs.
    assert.deepEqual(mainProof.range_proof, {
      protocol: 'Bulletproofs++',
      params_label: 'credential-service/bpp-params/v1',
    })
    assert.equal(mainProof.bounds.length, 2)
    assert.equal(mainProof.nonce, mainRequest.request.nonce)
    assert.equal(mainProof.audience, verifier.did)
    assert.match(mainProof.proof_value, /^[A-Za-z0-9_-]+$/)
    // Only what was chosen is disclosed: no other attribute value appears in the proof's clear
    // fields. (The binary field is left out of the search: kilobytes of base64url hold "Ada" by
    // chance now and then; what it hides is the proof's business, tested in the unit tests.)
    const text = JSON.stringify({ ...mainProof, proof_value: '' })
    for (const hidden of ['Ada', '1990-12-10', '"age":36']) assert.ok(!text.includes(hidden), hidden)

    // The issuer's DID document publishes what an outsider needs: the key, both labels.
    const doc = (await callAs(t.app, 'GET', `/api/did/${signingDid}`)).json()
    const method = (doc.didDocument ?? doc).verificationMethod.find((m: Json) => m.id === mainProof.verification_method)
    assert.equal(method.bbsSignatureParamsLabel, mainProof.params_label)
    assert.deepEqual(method.bbsRangeProof, {
      protocol: 'Bulletproofs++',
      paramsLabel: mainProof.range_proof.params_label,
    })

    const verified = await presentAndVerify(mainRequest, [mainProof])
    assert.deepEqual(verified.verification_result.errors, [])
    assert.equal(verified.verification_result.is_valid, true)
    assert.equal(verified.status, 'verified')
    const [subject] = verified.verification_result.credential_subjects
    assert.equal(subject.credential_id, credentialId)
    // The request named the login DID; the credential, signed as the issuer's did:web, meets it.
    assert.equal(subject.issuer, signingDid)
    assert.equal(subject.nationality, 'GB')
    assert.equal(subject.age, undefined)
    assert.deepEqual(verified.presentation.provided_attributes, ['nationality'])
    // What the proof established without the values, named beside the spec's fields.
    assert.deepEqual(
      verified.verification_result.proven_predicates.map((p: Json) => [p.attribute, p.operator, p.credential_id]),
      [
        ['age', '>=', credentialId],
        ['birth_date', '<=', credentialId],
      ],
    )
  })

  it('refuses predicates that do not hold (422) before proving anything', async () => {
    const res = await derive({
      reveal: [],
      predicates: [{ attribute: 'age', operator: '>', value: 36 }],
      nonce: 'n',
      verifier_did: verifier.did,
    })
    assert.equal(res.statusCode, 422, res.body)
    assert.match(res.json().message, /age > 36 does not hold/)
    const date = await derive({
      reveal: [],
      predicates: [{ attribute: 'birth_date', operator: '<', value: '1990-12-10' }],
      nonce: 'n',
      verifier_did: verifier.did,
    })
    assert.equal(date.statusCode, 422, date.body)
  })

  it('answers 400 for bad bodies: unknown attribute (named), predicate on a string, revealed and predicated, wrong value kind, limits', async () => {
    const base = { reveal: [], predicates: [], nonce: 'n', verifier_did: verifier.did }
    const cases: Array<[Json, RegExp | undefined]> = [
      [{ ...base, reveal: ['shoe_size'] }, /shoe_size/],
      [{ ...base, predicates: [{ attribute: 'height', operator: '>=', value: 1 }] }, /height/],
      [{ ...base, predicates: [{ attribute: 'given_name', operator: '>=', value: 1 }] }, /number and date/],
      [
        { ...base, reveal: ['age'], predicates: [{ attribute: 'age', operator: '>=', value: 18 }] },
        /both revealed and predicated/,
      ],
      [{ ...base, predicates: [{ attribute: 'age', operator: '>=', value: '2001-01-01' }] }, /must be a number/],
      [{ ...base, predicates: [{ attribute: 'age', operator: '>=', value: 18.00001 }] }, /decimals/],
      [{ ...base, predicates: [{ attribute: 'birth_date', operator: '<=', value: '2001-02-30' }] }, /calendar date/],
      [{ ...base, predicates: [{ attribute: 'age', operator: '!=', value: 1 }] }, undefined],
      [{ ...base, nonce: '' }, undefined],
      [{ reveal: [], predicates: [], verifier_did: verifier.did }, undefined],
      [{ ...base, verifier_did: 'x' }, undefined],
      [
        { ...base, predicates: Array.from({ length: 9 }, () => ({ attribute: 'age', operator: '>=', value: 1 })) },
        undefined,
      ],
    ]
    for (const [body, message] of cases) {
      const res = await derive(body)
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`)
      if (message) assert.match(res.json().message, message)
    }
  })

  it("answers 404 for someone else's credential, 403 for another DID in the path, 409 without a BBS signature", async () => {
    const body = { reveal: ['nationality'], predicates: [], nonce: 'n', verifier_did: verifier.did }
    assert.equal((await derive(body, credentialId, strangerToken, stranger.did)).statusCode, 404)
    assert.equal((await derive(body, 'aly:00000000-0000-4000-8000-000000000000')).statusCode, 404)
    assert.equal((await derive(body, credentialId, strangerToken, holder.did)).statusCode, 403)
    assert.equal((await callAs(t.app, 'POST', proofUrl(credentialId), undefined, body)).statusCode, 401)
    const jwtOnly = await derive(body, jwtOnlyId)
    assert.equal(jwtOnly.statusCode, 409, jwtOnly.body)
    assert.match(jwtOnly.json().message, /no anonymous \(BBS\) signature/)
    // A credential the holder withdrew from use (docs/wallet.md) is not proven either.
    const withdrawn = await callAs(
      t.app,
      'POST',
      `/api/wallet/${holder.did}/credentials/${withdrawnId}/revoke`,
      holderToken,
      {},
    )
    assert.equal(withdrawn.statusCode, 200, withdrawn.body)
    const refused = await derive(body, withdrawnId)
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().message, /withdrew this credential/)
  })

  it('fails a proof made for another nonce, and one whose nonce was edited to match, with readable errors', async () => {
    const other = await createRequest()
    const replayed = await presentAndVerify(other, [mainProof])
    assert.equal(replayed.verification_result.is_valid, false)
    assert.ok(
      replayed.verification_result.errors.some((e: string) => /another nonce/.test(e)),
      replayed.verification_result.errors.join('; '),
    )

    const third = await createRequest()
    const edited = await presentAndVerify(third, [{ ...mainProof, nonce: third.request.nonce }])
    assert.equal(edited.verification_result.is_valid, false)
    assert.ok(
      edited.verification_result.errors.some((e: string) => /does not verify/.test(e)),
      edited.verification_result.errors.join('; '),
    )
  })

  it('fails when a required predicate is not proven (a disclosure-only proof), or only claimed', async () => {
    const disclosureOnly = async (created: Json) => {
      const res = await derive({
        reveal: ['nationality'],
        predicates: [],
        nonce: created.request.nonce,
        verifier_did: verifier.did,
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().proof.range_proof, null)
      return res.json().proof as Json
    }
    const first = await createRequest()
    const honest = await presentAndVerify(first, [await disclosureOnly(first)])
    assert.equal(honest.verification_result.is_valid, false)
    assert.deepEqual(honest.verification_result.errors, [
      'predicate age >= 18 was not proven',
      'predicate birth_date <= 2008-11-22 was not proven',
    ])
    assert.deepEqual(honest.verification_result.proven_predicates, [])

    // Claiming the predicate in clear, without the bound check behind it, does not help.
    const second = await createRequest()
    const claimed = { ...(await disclosureOnly(second)), predicates: [{ attribute: 'age', operator: '>=', value: 18 }] }
    const result = await presentAndVerify(second, [claimed])
    assert.equal(result.verification_result.is_valid, false)
    assert.ok(
      result.verification_result.errors.some((e: string) => /bounds do not match/.test(e)),
      result.verification_result.errors.join('; '),
    )
    assert.ok(
      result.verification_result.errors.some((e: string) => /predicate age >= 18 was not proven/.test(e)),
      result.verification_result.errors.join('; '),
    )
    // A predicate only claimed is never reported as proven.
    assert.deepEqual(result.verification_result.proven_predicates, [])
  })

  it('refuses a proof made with the retired Pedersen-BitDecomposition-CDS; a presentation already verified with one keeps its verdict (409)', async () => {
    const retired = {
      ...mainProof,
      range_proof: {
        protocol: 'Pedersen-BitDecomposition-CDS',
        params_label: 'credential-service/range-bits/v1',
        proofs: ['AAAA', 'AAAA'],
      },
    }
    const fresh = await presentAndVerify(await createRequest(), [retired])
    assert.equal(fresh.verification_result.is_valid, false)
    assert.ok(
      fresh.verification_result.errors.some((e: string) =>
        /Pedersen-BitDecomposition-CDS, a protocol this service no longer verifies/.test(e),
      ),
      fresh.verification_result.errors.join('; '),
    )

    // A verdict the previous release recorded for such a presentation is not overwritten by a refusal.
    const id = fresh.presentation.id as string
    const verifiedAt = new Date('2026-11-30T10:00:00Z')
    await t.deps.database.db
      .updateTable('presentations')
      .set({ status: 'verified', is_verified: true, verified_at: verifiedAt })
      .where('id', '=', id)
      .execute()
    const row = await t.deps.database.db
      .selectFrom('presentations')
      .select('presentation_jwt')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    const again = await callAs(t.app, 'POST', `/api/verifier/presentations/${id}/verify`, verifierToken, {
      presentation_jwt: row.presentation_jwt,
    })
    assert.equal(again.statusCode, 409, again.body)
    assert.match(again.json().message, /no longer verifies: its recorded verdict \(verified\) stands/)
    const kept = (await callAs(t.app, 'GET', `/api/verifier/presentations/${id}`, verifierToken)).json().presentation
    assert.equal(kept.status, 'verified')
  })

  it('a revoked credential: its proofs fail verification, and no new one is derived (409)', async () => {
    assert.equal(
      (await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${credentialId}/revoke`, issuer.token))
        .statusCode,
      200,
    )
    const rows = await t.deps.database.db
      .selectFrom('presentations')
      .select(['id', 'presentation_jwt'])
      .where('request_id', '=', mainRequest.request.id)
      .execute()
    const again = await verifyPresentation(rows[0]!.id, rows[0]!.presentation_jwt)
    assert.equal(again.verification_result.is_valid, false)
    assert.ok(
      again.verification_result.errors.some((e: string) => /revoked/.test(e)),
      again.verification_result.errors.join('; '),
    )
    assert.equal(again.blockchain_verification.revoked, true)
    const res = await derive({ reveal: ['nationality'], predicates: [], nonce: 'n', verifier_did: verifier.did })
    assert.equal(res.statusCode, 409, res.body)
    assert.match(res.json().message, /revoked/)
  })
})
