import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  ABSENT,
  credentialMessages,
  ENCODED_RANGE,
  encodeIntegerValue,
  messageIndex,
  NUMBER_OFFSET,
  type AnonCredentialContent,
} from '../../src/crypto/bbs/bbs-messages.js'

const META = ['@id', '@type', '@issuer', '@subject', '@schema', '@issued_at', '@expires_at', '@status', '@layout']

const content: AnonCredentialContent = {
  meta: {
    id: 'aly:1',
    type: 'Degree',
    issuer: 'did:example:issuer',
    subject: 'did:example:holder',
    schema_id: 'schema-1',
    issued_at: '2026-11-22T12:00:00.000Z',
  },
  attributes: {
    name: 'Ada',
    gpa: 3.5,
    birth_date: '2001-02-03',
    active: true,
    address: { b: 1, a: 2 },
    Zone: 'EU',
    tags: ['x', 1],
    _code: 'c',
  },
  types: {
    name: 'string',
    gpa: 'number',
    birth_date: 'date',
    active: 'boolean',
    address: 'object',
    nickname: 'string',
    Zone: 'string',
    tags: 'array',
    _code: 'string',
  },
}

const byName = (c: AnonCredentialContent) => Object.fromEntries(credentialMessages(c).map((m) => [m.name, m]))

describe('BBS message layout', () => {
  it('puts the meta slots first, then attributes in UTF-16 code-unit order (not the locale), absent ones as a marker', () => {
    const messages = credentialMessages(content)
    // Code units: 'Z' (0x5A) < '_' (0x5F) < 'a' (0x61); localeCompare would put "Zone" last.
    assert.deepEqual(
      messages.map((m) => m.name),
      [...META, 'Zone', '_code', 'active', 'address', 'birth_date', 'gpa', 'name', 'nickname', 'tags'],
    )
    const m = byName(content)
    assert.deepEqual(m.nickname, { name: 'nickname', encoding: 'text', value: ABSENT })
    assert.deepEqual(m['@expires_at'], { name: '@expires_at', encoding: 'text', value: ABSENT })
    assert.deepEqual(m['@issuer'], { name: '@issuer', encoding: 'text', value: 'did:example:issuer' })
    assert.deepEqual(m['@schema'], { name: '@schema', encoding: 'text', value: 'schema-1' })
    for (const [i, message] of messages.entries()) assert.equal(messageIndex(content, message.name), i)
    assert.throws(() => messageIndex(content, 'unknown'), RangeError)
  })

  it('encodes each data type as documented', () => {
    const m = byName({ ...content, meta: { ...content.meta, expires_at: '2027-01-01T00:00:00+01:00' } })
    assert.deepEqual(m.address, { name: 'address', encoding: 'text', value: '{"a":2,"b":1}' })
    assert.deepEqual(m.tags, { name: 'tags', encoding: 'text', value: '["x",1]' })
    assert.deepEqual(m.active, { name: 'active', encoding: 'text', value: 'true' })
    assert.deepEqual(m.name, { name: 'name', encoding: 'text', value: 'Ada' })
    assert.deepEqual(m.gpa, { name: 'gpa', encoding: 'integer', value: 35_000 + 2 ** 49 })
    // 2001-02-03 is 11,356 days after 1970-01-01; year 1 to 1970 adds 719,162.
    assert.deepEqual(m.birth_date, { name: 'birth_date', encoding: 'integer', value: 11_356 + 719_162 })
    // Seconds since 1970 (RFC 7519 NumericDate), offsets honoured.
    assert.deepEqual(m['@issued_at'], { name: '@issued_at', encoding: 'integer', value: 1_795_348_800 })
    assert.deepEqual(m['@expires_at'], { name: '@expires_at', encoding: 'integer', value: 1_798_758_000 })
    assert.equal(byName({ ...content, attributes: { ...content.attributes, active: false } }).active!.value, 'false')
  })

  it('depends only on the schema: input key order and absent values do not move any slot', () => {
    const reordered: AnonCredentialContent = {
      ...content,
      attributes: Object.fromEntries(Object.entries(content.attributes).reverse()),
      types: Object.fromEntries(Object.entries(content.types).reverse()),
    }
    assert.deepEqual(credentialMessages(reordered), credentialMessages(content))
    const sparse = credentialMessages({ ...content, attributes: { name: 'Ada' } })
    assert.deepEqual(
      sparse.map((m) => m.name),
      credentialMessages(content).map((m) => m.name),
    )
    assert.equal(sparse.filter((m) => m.value === ABSENT).length, 10) // 8 attributes + expiry + status
  })

  it('refuses values that do not match their type, unknown or reserved names, and the absent marker as a value', () => {
    const bad: Array<[string, Partial<AnonCredentialContent>]> = [
      ['number as string', { attributes: { gpa: '3.5' } }],
      ['boolean as string', { attributes: { active: 'yes' } }],
      ['string as number', { attributes: { name: 5 } }],
      ['array for object', { attributes: { address: [1] } }],
      ['object for array', { attributes: { tags: { a: 1 } } }],
      ['not a calendar date', { attributes: { birth_date: '2001-02-30' } }],
      ['not in the schema', { attributes: { extra: 'x' } }],
      ['reserved name', { types: { ...content.types, '@id': 'string' } }],
      ['absent marker as a value', { attributes: { name: ABSENT } }],
      ['non-JSON object', { attributes: { address: { n: Number.NaN } } }],
      ['non RFC 3339 time', { meta: { ...content.meta, issued_at: 'Nov 22 2026' } }],
    ]
    for (const [label, change] of bad)
      assert.throws(() => credentialMessages({ ...content, ...change }), RangeError, label)
  })
})

describe('integer encodings', () => {
  it('keeps the order of numbers, negatives and decimals included', () => {
    const values = [
      -56_294_995_342.1311, -1e9, -12.5, -1, -0.0002, -0.0001, 0, 0.0001, 1, 3.1415, 17.9999, 18, 18.0001, 1e9,
      56_294_995_342.1311,
    ]
    const encoded = values.map((v) => encodeIntegerValue('number', v))
    for (let i = 1; i < encoded.length; i++) assert.ok(encoded[i - 1]! < encoded[i]!, `${values[i - 1]} < ${values[i]}`)
    for (const e of encoded)
      assert.ok(Number.isSafeInteger(e) && e >= ENCODED_RANGE.number.min && e < ENCODED_RANGE.number.maxExclusive)
    assert.equal(encodeIntegerValue('number', -0), encodeIntegerValue('number', 0))
  })

  it('is exact and monotonic on random decimals with up to four places', () => {
    // n / 10^4 is the double nearest the decimal n·10^-4, so its encoding must be n + 2^49 exactly.
    const random = () => Math.round((Math.random() * 2 - 1) * 10 ** Math.floor(Math.random() * 15))
    for (let i = 0; i < 2000; i++) {
      const a = random()
      const b = random()
      const ea = encodeIntegerValue('number', a / 10_000)
      assert.equal(ea, a + NUMBER_OFFSET, `${a / 10_000}`)
      assert.equal(Math.sign(ea - encodeIntegerValue('number', b / 10_000)), Math.sign(a - b) || 0)
    }
  })

  it('refuses numbers it cannot encode exactly', () => {
    for (const bad of [
      0.00001,
      1.23456,
      1e-7,
      0.1 + 0.2,
      56_294_995_342.1313,
      -6e10,
      1e21,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]) {
      assert.throws(() => encodeIntegerValue('number', bad), RangeError, String(bad))
    }
    assert.throws(() => encodeIntegerValue('number', '18'), RangeError)
  })

  it('encodes dates as days since 1970 shifted to be non-negative from year 1, in calendar order', () => {
    const epoch = encodeIntegerValue('date', '1970-01-01')
    assert.equal(encodeIntegerValue('date', '2000-01-01') - epoch, 10_957)
    assert.equal(encodeIntegerValue('date', '1969-12-31') - epoch, -1)
    assert.equal(encodeIntegerValue('date', '0001-01-01'), 0)
    assert.equal(encodeIntegerValue('date', '2000-03-01') - encodeIntegerValue('date', '2000-02-28'), 2) // leap year
    assert.equal(encodeIntegerValue('date', '1900-03-01') - encodeIntegerValue('date', '1900-02-28'), 1) // not one
    const dates = ['0001-01-01', '1899-12-31', '1969-12-31', '1970-01-01', '2000-02-29', '2026-11-22', '9999-12-31']
    const encoded = dates.map((d) => encodeIntegerValue('date', d))
    for (let i = 1; i < encoded.length; i++) assert.ok(encoded[i - 1]! < encoded[i]!)
    assert.equal(encoded.at(-1)! + 1, ENCODED_RANGE.date.maxExclusive)
    for (const bad of ['2001-02-30', '2001-13-01', '20010203', '2001-2-3', '0000-12-31', '2001-02-03T00:00:00Z']) {
      assert.throws(() => encodeIntegerValue('date', bad), RangeError, bad)
    }
    assert.throws(() => encodeIntegerValue('date', 20010203), RangeError)
  })
})
