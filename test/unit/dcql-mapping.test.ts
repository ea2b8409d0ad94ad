import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DcqlQuery } from 'dcql'
import { dcqlProblems, dcqlQueryFor } from '../../src/modules/openid4vc/verifier/dcql-mapping.js'
import type { ReadCredential } from '../../src/modules/credentials/formats/credential-format.js'
import { jwtVcJson } from '../../src/modules/credentials/formats/jwt-vc-json/jwt-vc-json.format.js'
import { sdJwtVcFormat, type SdJwtVcDeps } from '../../src/modules/credentials/formats/sd-jwt-vc/sd-jwt-vc.format.js'

const BASE = 'https://service.example'
/** The formats with a DCQL face, as registered (registered-formats.ts): only their DCQL faces are used here. */
const FORMATS = [sdJwtVcFormat({ publicBaseUrl: BASE } as SdJwtVcDeps), jwtVcJson]
/** A request for an Identity credential disclosing given_name, no schema named. */
const IDENTITY_GIVEN_NAME = {
  required_credentials: [{ credential_type: 'Identity', required_attributes: ['given_name'] }],
  required_predicates: [],
}
const read = (over: Partial<ReadCredential>): ReadCredential => ({
  issuer: 'did:example:issuer',
  types: ['VerifiableCredential', 'Identity'],
  schemaIds: [],
  attributes: {},
  extensions: [],
  document: {},
  revoked: false,
  ...over,
})

describe('DCQL from a presentation request (docs/openid4vp.md "DCQL mapping")', () => {
  it('one required credential set per requirement, one option per format; schema_id → vct_values, attributes and predicates → claims', () => {
    const query = dcqlQueryFor(
      {
        required_credentials: [
          { credential_type: 'Identity', schema_id: 'schema-1', required_attributes: ['given_name'] },
          { credential_type: 'Membership' },
        ],
        required_predicates: [
          { attribute: 'age', operator: '>=', value: 18, credential_type: 'Identity' },
          { attribute: 'points', operator: '>', value: 3, credential_type: 'Loyalty' },
        ],
      },
      FORMATS,
    )!
    DcqlQuery.validate(query)
    const byId = Object.fromEntries(query.credentials.map((c) => [c.id, c as Record<string, unknown>]))
    assert.deepEqual(Object.keys(byId), ['c0_sd_jwt', 'c0_jwt_vc', 'c1_sd_jwt', 'c1_jwt_vc', 'p0_sd_jwt', 'p0_jwt_vc'])
    assert.deepEqual(byId.c0_sd_jwt!.meta, { vct_values: [`${BASE}/vct/schema-1`] })
    assert.deepEqual(byId.c0_sd_jwt!.claims, [{ path: ['given_name'] }, { path: ['age'] }])
    assert.deepEqual(byId.c0_jwt_vc!.meta, { type_values: [['Identity']] })
    assert.deepEqual(byId.c0_jwt_vc!.claims, [
      { path: ['credentialSubject', 'given_name'] },
      { path: ['credentialSubject', 'age'] },
    ])
    // Without a schema, meta.vct_values names the type itself (a vct from elsewhere); no made-up claim carries it.
    assert.deepEqual(byId.c1_sd_jwt!.meta, { vct_values: ['Membership'] })
    assert.equal(byId.c1_sd_jwt!.claims, undefined)
    assert.deepEqual(byId.p0_jwt_vc!.claims, [{ path: ['credentialSubject', 'points'] }])
    assert.deepEqual(
      query.credential_sets!.map((s) => s.options),
      [
        [['c0_sd_jwt'], ['c0_jwt_vc']],
        [['c1_sd_jwt'], ['c1_jwt_vc']],
        [['p0_sd_jwt'], ['p0_jwt_vc']],
      ],
    )
    assert.ok(query.credential_sets!.every((s) => s.required))
  })

  it('without schema_id, an SD-JWT VC query names the vct of each schema the type is issued under (OID4VP 1.0 §6.1, B.3.5)', () => {
    const known = { ofType: { Identity: ['schema-1', 'schema 2'] }, withAttributes: [] }
    const request = IDENTITY_GIVEN_NAME
    const query = dcqlQueryFor(request, FORMATS, known)!
    DcqlQuery.validate(query)
    const sd = query.credentials.find((c) => c.format === 'dc+sd-jwt') as Record<string, unknown>
    assert.deepEqual(sd.meta, { vct_values: ['Identity', `${BASE}/vct/schema-1`, `${BASE}/vct/schema%202`] })
    assert.deepEqual(sd.claims, [{ path: ['given_name'] }])
    // A schema_id that is a URI is the vct of another issuer's SD-JWT VC type.
    const elsewhere = [{ credential_type: 'Identity', schema_id: 'https://elsewhere.example/vct/id' }]
    const foreign = dcqlQueryFor({ ...IDENTITY_GIVEN_NAME, required_credentials: elsewhere }, FORMATS)!
    assert.deepEqual((foreign.credentials[0] as Record<string, unknown>).meta, {
      vct_values: ['https://elsewhere.example/vct/id'],
    })
    // A credential of one of those schemas matches as a standard wallet reads it; another vct does not.
    const binding = { cryptographic_holder_binding: true }
    const held = (vct: string) => [
      { credential_format: 'dc+sd-jwt' as const, vct, claims: { given_name: 'Ada' }, ...binding },
    ]
    assert.equal(DcqlQuery.query(query, held(`${BASE}/vct/schema%202`)).can_be_satisfied, true)
    assert.equal(DcqlQuery.query(query, held(`${BASE}/vct/other`)).can_be_satisfied, false)
  })

  it('nothing to ask: no query', () => {
    assert.equal(dcqlQueryFor({ required_credentials: [], required_predicates: [] }, FORMATS), undefined)
    const predicate = {
      required_credentials: [],
      required_predicates: [{ attribute: 'age', operator: '>=' as const, value: 18 }],
    }
    // A predicate of no type: the schemas that have the attribute; none known, nothing DCQL can name.
    assert.equal(dcqlQueryFor(predicate, FORMATS), undefined)
    const any = dcqlQueryFor(predicate, FORMATS, { ofType: {}, withAttributes: ['schema-1'] })!
    assert.deepEqual(
      any.credentials.map((c) => c.id),
      ['p_any_sd_jwt'],
    )
    assert.deepEqual((any.credentials[0] as Record<string, unknown>).meta, { vct_values: [`${BASE}/vct/schema-1`] })
  })

  it('checks what was presented against the query: the asked claims, the type, every required set', () => {
    const request = IDENTITY_GIVEN_NAME
    const query = dcqlQueryFor(request, FORMATS, { ofType: { Identity: ['x'] }, withAttributes: [] })!
    const formats = Object.fromEntries(query.credentials.map((c) => [c.id, c.format]))
    assert.deepEqual(
      dcqlProblems(query, { c0_jwt_vc: [[read({ attributes: { given_name: 'Ada' } })]] }, formats, FORMATS),
      [],
    )
    assert.deepEqual(
      dcqlProblems(
        query,
        { c0_sd_jwt: [[read({ attributes: { given_name: 'Ada' }, document: { vct: `${BASE}/vct/x` } })]] },
        formats,
        FORMATS,
      ),
      [],
    )
    assert.match(dcqlProblems(query, { c0_jwt_vc: [[read({ attributes: {} })]] }, formats, FORMATS).join(), /c0_jwt_vc/)
    assert.match(
      dcqlProblems(
        query,
        { c0_jwt_vc: [[read({ types: ['VerifiableCredential', 'Other'], attributes: { given_name: 'Ada' } })]] },
        formats,
        FORMATS,
      ).join(),
      /DCQL/,
    )
    assert.match(dcqlProblems(query, { c0_jwt_vc: [[]] }, formats, FORMATS).join(), /no credential could be read/)
  })
})
