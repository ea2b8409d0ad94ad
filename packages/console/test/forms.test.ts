import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  attributeValues,
  fieldValue,
  humanize,
  inputKind,
  parseJsonObject,
  parseList,
  parsePredicateLines,
  predicateValue,
  shortDid,
} from '../src/lib/forms.js'

const SCHEMA = [
  { name: 'given_name', data_type: 'string', required: true },
  { name: 'gpa', data_type: 'number', required: true },
  { name: 'graduated', data_type: 'boolean' },
  { name: 'birth_date', data_type: 'date' },
  { name: 'email', data_type: 'email' },
  { name: 'homepage', data_type: 'url' },
  { name: 'courses', data_type: 'array' },
]

describe('console form values', () => {
  it('gives each data type its own HTML input', () => {
    assert.deepEqual(
      ['string', 'number', 'boolean', 'date', 'email', 'url', 'file', 'object'].map((t) => inputKind(t).type),
      ['text', 'number', 'checkbox', 'date', 'email', 'url', 'text', 'json'],
    )
  })

  it('types the form values per the schema and leaves out empty optional fields', () => {
    assert.deepEqual(
      attributeValues(SCHEMA, {
        given_name: ' Ada ',
        gpa: '3.8',
        graduated: true,
        birth_date: '2001-02-03',
        email: '',
        courses: '["maths"]',
      }),
      {
        given_name: 'Ada',
        gpa: 3.8,
        graduated: true,
        birth_date: '2001-02-03',
        courses: ['maths'],
      },
    )
    // An unticked checkbox is a false, not a missing value.
    assert.equal(attributeValues(SCHEMA, { given_name: 'Ada', gpa: '3' }).graduated, false)
  })

  it('names every missing required attribute and every value of the wrong kind', () => {
    assert.throws(
      () => attributeValues(SCHEMA, { gpa: 'high', birth_date: '03/02/2001', courses: '[' }),
      (e: Error) => {
        assert.match(e.message, /given_name is required/)
        assert.match(e.message, /gpa must be a number/)
        assert.match(e.message, /birth_date must be a date/)
        assert.match(e.message, /courses is not valid JSON/)
        return true
      },
    )
  })

  it('skips fixed attributes and, for templates, required ones left empty', () => {
    assert.deepEqual(attributeValues(SCHEMA, { gpa: '4' }, { skip: new Set(['given_name', 'graduated']) }), { gpa: 4 })
    assert.deepEqual(attributeValues(SCHEMA.slice(0, 2), {}, { partial: true }), {})
    // A template fixes a yes/no only when it was set (ticked, or ticked and unticked).
    assert.deepEqual(attributeValues(SCHEMA.slice(2, 3), {}, { partial: true }), {})
    assert.deepEqual(attributeValues(SCHEMA.slice(2, 3), { graduated: false }, { partial: true }), { graduated: false })
  })

  it('shows stored values back in their fields', () => {
    assert.equal(fieldValue('boolean', true), true)
    assert.equal(fieldValue('boolean', 'yes'), false)
    assert.equal(fieldValue('number', 3.5), '3.5')
    assert.equal(fieldValue('array', ['a']), '["a"]')
    assert.equal(fieldValue('string', undefined), '')
  })

  it('reads predicates, numbers as numbers and dates as text', () => {
    assert.deepEqual(parsePredicateLines('gpa >= 3\nbirth_date < 2008-01-01\nscore>2.5'), [
      { attribute: 'gpa', operator: '>=', value: 3 },
      { attribute: 'birth_date', operator: '<', value: '2008-01-01' },
      { attribute: 'score', operator: '>', value: 2.5 },
    ])
    assert.throws(() => parsePredicateLines('gpa == 3'), /"gpa == 3"/)
    assert.equal(predicateValue(' -2 '), -2)
    assert.equal(predicateValue('2008-01-01'), '2008-01-01')
  })

  it('accepts only a JSON object where one is expected', () => {
    assert.deepEqual(parseJsonObject(' {"gpa": 3.8} ', 'Attributes'), { gpa: 3.8 })
    assert.deepEqual(parseJsonObject('', 'Attributes'), {})
    assert.throws(() => parseJsonObject('[1]', 'Attributes'), /Attributes: a JSON object/)
    assert.throws(() => parseJsonObject('{gpa', 'Attributes'), /Attributes: not valid JSON/)
  })

  it('splits comma lists', () => {
    assert.deepEqual(parseList(' given_name, ,family_name '), ['given_name', 'family_name'])
  })

  it('writes attribute names as labels and shortens long DIDs', () => {
    assert.equal(humanize('given_name'), 'Given name')
    assert.equal(humanize('birthDate'), 'Birth date')
    assert.equal(shortDid('did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'), 'did:key:z6Mkha…2doK')
    assert.equal(shortDid('did:web:example.org'), 'did:web:example.org')
    assert.equal(shortDid('not a did'), 'not a did')
  })
})
