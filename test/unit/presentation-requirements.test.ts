import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  unmetRequirements,
  type PresentedCredential,
} from '../../src/modules/presentation/presentation-requirements.js'
import { encodeIntegerValue } from '../../src/crypto/bbs/bbs-messages.js'
import type { RequiredCredential, RequiredPredicate } from '../../src/db/database.js'

const A = 'did:key:issuerA'
const B = 'did:key:issuerB'
const SELF = 'did:key:holder'

const jwt = (
  issuer: string,
  type: string,
  attributes: Record<string, unknown>,
  extra: Partial<PresentedCredential> = {},
): PresentedCredential => ({
  id: undefined,
  issuer,
  types: ['VerifiableCredential', type],
  schemaIds: [],
  attributes,
  provenPredicates: [],
  provenBounds: [],
  revoked: false,
  valid: true,
  ...extra,
})
const age18: RequiredPredicate = { attribute: 'age', operator: '>=', value: 18 }
const idFromA: RequiredCredential = { credential_type: 'Id', issuer_did: A }

describe('unmetRequirements: each requirement met by one credential with all its constraints', () => {
  it('binds an untyped predicate to the credentials the request requires', () => {
    assert.deepEqual(unmetRequirements([jwt(A, 'Id', { age: 20 })], [idFromA], [age18]), [])
    assert.deepEqual(unmetRequirements([jwt(A, 'Id', { age: 16 }), jwt(SELF, 'Id', { age: 99 })], [idFromA], [age18]), [
      `predicate age >= 18 was proven only on a credential the request does not accept (issued by ${SELF}, not Id from ${A})`,
    ])
    // Another type from the right issuer does not meet it either.
    assert.equal(
      unmetRequirements([jwt(A, 'Id', { age: 16 }), jwt(A, 'Club', { age: 40 })], [idFromA], [age18]).length,
      1,
    )
  })

  it('makes a typed predicate a constraint of the required credential of its type', () => {
    const typed = { ...age18, credential_type: 'Id' }
    assert.deepEqual(unmetRequirements([jwt(A, 'Id', { age: 16 }), jwt(SELF, 'Id', { age: 99 })], [idFromA], [typed]), [
      `predicate age >= 18 is not satisfied by Id from ${A}`,
    ])
    // Two credentials of A: the one that meets everything is enough.
    assert.deepEqual(unmetRequirements([jwt(A, 'Id', { age: 16 }), jwt(A, 'Id', { age: 30 })], [idFromA], [typed]), [])
  })

  it('binds a typed predicate with no required credential of its type to the issuers the request names', () => {
    const clubAge = { ...age18, credential_type: 'Club' }
    assert.equal(unmetRequirements([jwt(A, 'Id', {}), jwt(B, 'Club', { age: 30 })], [idFromA], [clubAge]).length, 1)
    assert.deepEqual(unmetRequirements([jwt(A, 'Id', {}), jwt(A, 'Club', { age: 30 })], [idFromA], [clubAge]), [])
    // A request naming no issuer accepts any issuer.
    assert.deepEqual(unmetRequirements([jwt(SELF, 'Club', { age: 30 })], [], [clubAge]), [])
  })

  it('takes required attributes and predicates from the same credential', () => {
    const required = { ...idFromA, required_attributes: ['name'] }
    assert.equal(
      unmetRequirements([jwt(A, 'Id', { name: 'Ada', age: 16 }), jwt(A, 'Id', { age: 30 })], [required], [age18])
        .length,
      1,
    )
    assert.deepEqual(
      unmetRequirements(
        [jwt(A, 'Id', { name: 'Ada', age: 16 }), jwt(A, 'Id', { name: 'Ada', age: 30 })],
        [required],
        [age18],
      ),
      [],
    )
  })

  it('with several required credentials, a predicate is met by a credential meeting any one of them', () => {
    const both = [idFromA, { credential_type: 'Degree', issuer_did: B }]
    assert.deepEqual(unmetRequirements([jwt(A, 'Id', { age: 20 }), jwt(B, 'Degree', {})], both, [age18]), [])
    assert.equal(
      unmetRequirements([jwt(A, 'Id', { age: 16 }), jwt(B, 'Degree', {}), jwt(SELF, 'Degree', { age: 30 })], both, [
        age18,
      ]).length,
      1,
    )
  })

  it('counts no credential that failed its own checks, and matches the schema when one is named', () => {
    assert.deepEqual(unmetRequirements([jwt(A, 'Id', { age: 20 }, { valid: false })], [idFromA], [age18]), [
      `missing required credential Id from ${A}`,
      'predicate age >= 18 was not proven',
    ])
    const bySchema = { ...idFromA, schema_id: 's-1' }
    assert.deepEqual(unmetRequirements([jwt(A, 'Id', {}, { schemaIds: ['s-2'] })], [bySchema], []), [
      `missing required credential Id from ${A} of schema s-1`,
    ])
    assert.deepEqual(
      unmetRequirements([jwt(A, 'Id', {}, { schemaIds: ['https://x/schema', 's-1'] })], [bySchema], []),
      [],
    )
  })

  it('meets a type or schema by a name the request asked for in its stead (an mdoc doctype), and only by that name', () => {
    const mdl = { ...jwt(A, 'x', { age_over_18: true, age: 30 }), types: ['org.iso.18013.5.1.mDL'] }
    const licence: RequiredCredential = { credential_type: 'DrivingLicence', issuer_did: A, schema_id: 's-1' }
    const names = {
      types: { DrivingLicence: ['org.iso.18013.5.1.mDL'] },
      schemas: { 's-1': ['org.iso.18013.5.1.mDL'] },
    }
    assert.deepEqual(unmetRequirements([mdl], [licence], [], names), [])
    // A typed predicate of the type is checked on the credential known by the other name.
    const over21 = { attribute: 'age', operator: '>=', value: 21, credential_type: 'DrivingLicence' }
    assert.deepEqual(unmetRequirements([mdl], [], [over21], names), [])
    assert.deepEqual(unmetRequirements([mdl], [licence], []), [
      `missing required credential DrivingLicence from ${A} of schema s-1`,
    ])
    const otherName = {
      types: { DrivingLicence: ['org.example.other'] },
      schemas: { 's-1': ['org.iso.18013.5.1.mDL'] },
    }
    assert.deepEqual(unmetRequirements([mdl], [licence], [], otherName), [
      `missing required credential DrivingLicence from ${A} of schema s-1`,
    ])
  })

  it('meets a predicate by a proven bound of a BBS proof, never by a stated predicate alone', () => {
    const proof = (bounds: PresentedCredential['provenBounds']) =>
      jwt(A, 'Id', {}, { provenPredicates: [age18], provenBounds: bounds })
    const from = (n: number) => [
      { attribute: 'age', dataType: 'number' as const, min: encodeIntegerValue('number', n), maxExclusive: 2 ** 50 },
    ]
    assert.deepEqual(unmetRequirements([proof(from(21))], [idFromA], [age18]), [])
    assert.deepEqual(unmetRequirements([proof(from(16))], [idFromA], [age18]), ['predicate age >= 18 was not proven'])
    // A proof of another issuer's credential proves nothing for this request.
    assert.equal(
      unmetRequirements([jwt(A, 'Id', { age: 16 }), { ...proof(from(21)), issuer: B }], [idFromA], [age18]).length,
      1,
    )
    assert.deepEqual(unmetRequirements([proof([])], [idFromA], [age18]), ['predicate age >= 18 was not proven'])
  })
})
