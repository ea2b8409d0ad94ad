/**
 * Schema attribute values ↔ CBOR data element values of the mdoc format, and the ready-made mDL
 * and PID schemas checked against the issuer module's schema body (TypeBox) and 18013-5 Table 5.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Value } from '@sinclair/typebox/value'
import { DateOnly as AnimoDateOnly } from '@animo-id/mdoc'
import { DataItem, DateOnly, cborDecode, cborEncode } from '@owf/mdoc'
import { ValidationError } from '../../src/errors.js'
import { SchemaBody } from '../../src/modules/issuer/issuer.schemas.js'
import { fromElementValue, toElementValue } from '../../src/modules/credentials/formats/mdoc/mdoc-values.js'
import { MDL_SCHEMA, PID_SCHEMA } from '../../src/modules/credentials/formats/mdoc/mdoc-schemas.js'

describe('mdoc element values', () => {
  it('a date becomes a full-date and comes back as YYYY-MM-DD', () => {
    const v = toElementValue('birth_date', '1990-02-28', 'date')
    assert.ok(v instanceof DateOnly)
    const decoded = cborDecode(cborEncode(v))
    assert.equal(fromElementValue(decoded), '1990-02-28')
    // Another mdoc library's class for the same tag (the one loaded last decodes it) reads the same.
    assert.equal(fromElementValue(new AnimoDateOnly('1990-02-28')), '1990-02-28')
    assert.deepEqual(fromElementValue([{ issue_date: new AnimoDateOnly('2008-05-01') }]), [
      { issue_date: '2008-05-01' },
    ])
    for (const bad of ['1990-2-28', '1990-13-01', '28-02-1990', 19900228, '1990-02-28T00:00:00Z'])
      assert.throws(() => toElementValue('birth_date', bad, 'date'), ValidationError)
  })

  it('a file is a data: URL or base64 / base64url, and comes back as base64url', () => {
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xfe, 0xfb])
    for (const input of [
      `data:image/jpeg;base64,${bytes.toString('base64')}`,
      bytes.toString('base64'),
      bytes.toString('base64url'),
    ]) {
      const v = toElementValue('portrait', input, 'file')
      assert.deepEqual(Buffer.from(v as Uint8Array), bytes)
      assert.equal(fromElementValue(v), bytes.toString('base64url'))
    }
    assert.throws(() => toElementValue('portrait', 'data:text/plain,hello', 'file'), ValidationError)
    assert.throws(() => toElementValue('portrait', 'not base64!', 'file'), ValidationError)
    assert.throws(() => toElementValue('portrait', 42, 'file'), ValidationError)
  })

  it('objects and arrays become CBOR maps and arrays, and come back as JSON', () => {
    const json = { vehicle_category_code: 'A', codes: [{ code: '01', sign: '<=' }], n: 3 }
    const v = toElementValue('driving_privileges', [json], 'array')
    const decoded = cborDecode<unknown[]>(cborEncode(v))
    assert.ok(decoded[0] instanceof Map)
    assert.deepEqual(fromElementValue(decoded), [json])
    assert.throws(() => toElementValue('x', { a: 1 }, 'array'), ValidationError)
    assert.throws(() => toElementValue('x', [1], 'object'), ValidationError)
  })

  it('driving_privileges carries its issue_date and expiry_date as full-date (18013-5 §7.2.4)', () => {
    const privileges = [
      { vehicle_category_code: 'B', issue_date: '2020-01-02', expiry_date: '2030-01-02', note: '2020-01-02' },
    ]
    const decoded = cborDecode<Map<string, unknown>[]>(
      cborEncode(toElementValue('driving_privileges', privileges, 'array')),
    )
    assert.ok(decoded[0]?.get('issue_date') instanceof DateOnly)
    assert.ok(decoded[0]?.get('expiry_date') instanceof DateOnly)
    assert.equal(decoded[0]?.get('note'), '2020-01-02')
    assert.deepEqual(fromElementValue(decoded), privileges)
  })

  it('scalars are checked against their type', () => {
    assert.equal(toElementValue('age_over_18', true, 'boolean'), true)
    assert.equal(toElementValue('height', 180, 'number'), 180)
    assert.equal(toElementValue('email', 'a@b.example', 'email'), 'a@b.example')
    assert.throws(() => toElementValue('age_over_18', 'true', 'boolean'), ValidationError)
    assert.throws(() => toElementValue('height', '180', 'number'), ValidationError)
    assert.throws(() => toElementValue('family_name', 7, 'string'), ValidationError)
  })

  it('reads a tdate as ISO 8601, an embedded data item as its content, a big integer as a number or text', () => {
    const tdate = cborDecode(cborEncode(new Date('2025-01-02T03:04:05Z')))
    assert.equal(fromElementValue(tdate), '2025-01-02T03:04:05Z')
    assert.deepEqual(fromElementValue(DataItem.fromData(new Map([['a', 1]]))), { a: 1 })
    assert.equal(fromElementValue(5n), 5)
    assert.equal(fromElementValue(2n ** 70n), (2n ** 70n).toString())
  })
})

describe('mdoc ready-made schemas', () => {
  for (const schema of [MDL_SCHEMA, PID_SCHEMA]) {
    it(`${schema.mdoc.doctype} is a valid schema body of the issuer module`, () => {
      const { mdoc: _mdoc, ...body } = schema
      assert.ok(Value.Check(SchemaBody, body), JSON.stringify([...Value.Errors(SchemaBody, body)][0]))
    })
  }

  it('the mDL holds the mandatory elements of ISO/IEC 18013-5 Table 5 with their types', () => {
    const types = Object.fromEntries(MDL_SCHEMA.attributes.map((a) => [a.name, a.data_type]))
    assert.deepEqual(types, {
      family_name: 'string',
      given_name: 'string',
      birth_date: 'date',
      issue_date: 'date',
      expiry_date: 'date',
      issuing_country: 'string',
      issuing_authority: 'string',
      document_number: 'string',
      portrait: 'file',
      driving_privileges: 'array',
      un_distinguishing_sign: 'string',
      age_over_18: 'boolean',
      age_over_21: 'boolean',
    })
    assert.deepEqual(MDL_SCHEMA.mdoc, { doctype: 'org.iso.18013.5.1.mDL', namespace: 'org.iso.18013.5.1' })
  })

  it('the PID is in namespace eu.europa.ec.eudi.pid.1 with the rulebook attributes', () => {
    assert.deepEqual(PID_SCHEMA.mdoc, { doctype: 'eu.europa.ec.eudi.pid.1', namespace: 'eu.europa.ec.eudi.pid.1' })
    assert.deepEqual(PID_SCHEMA.attributes.map((a) => a.name).sort(), [
      'age_over_18',
      'birth_date',
      'birth_place',
      'expiry_date',
      'family_name',
      'given_name',
      'issuance_date',
      'issuing_authority',
      'issuing_country',
      'nationality',
    ])
  })
})
