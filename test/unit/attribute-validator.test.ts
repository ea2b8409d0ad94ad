import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ValidationError } from '../../src/errors.js'
import { AttributeValidators } from '../../src/modules/issuer/attribute-validator.js'

const schema = {
  id: 'schema-1',
  updated_at: new Date('2026-01-01T00:00:00Z'),
  attributes: [
    { name: 'name', data_type: 'string', description: '', required: true },
    { name: 'age', data_type: 'number', description: '', required: true },
    { name: 'member', data_type: 'boolean', description: '', required: false },
    { name: 'born', data_type: 'date', description: '', required: false },
    { name: 'mail', data_type: 'email', description: '', required: false },
    { name: 'site', data_type: 'url', description: '', required: false },
    { name: 'photo', data_type: 'file', description: '', required: false },
    { name: 'address', data_type: 'object', description: '', required: false },
    { name: 'tags', data_type: 'array', description: '', required: false },
  ],
}

describe('attribute validation against a schema', () => {
  const validators = new AttributeValidators()

  it('accepts values of every data type', () => {
    validators.check(schema, {
      name: 'Alice',
      age: 30,
      member: true,
      born: '1990-01-31',
      mail: 'a@example.org',
      site: 'https://example.org',
      photo: 'bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy',
      address: { city: 'X' },
      tags: ['a'],
    })
  })

  it('names the attribute for each wrong type, missing required and unknown attribute', () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ age: 30 }, /"name" is required/],
      [{ name: 'A', age: '30' }, /"age" must be number/],
      [{ name: 'A', age: 1, member: 'yes' }, /"member" must be boolean/],
      [{ name: 'A', age: 1, born: '31/01/1990' }, /"born" must match format "date"/],
      [{ name: 'A', age: 1, mail: 'nope' }, /"mail" must match format "email"/],
      [{ name: 'A', age: 1, site: 'not a url' }, /"site" must match format "uri"/],
      [{ name: 'A', age: 1, address: 'street' }, /"address" must be object/],
      [{ name: 'A', age: 1, tags: 'a' }, /"tags" must be array/],
      [{ name: 'A', age: 1, nickname: 'x' }, /"nickname" is not in the schema/],
    ]
    for (const [values, message] of cases) {
      assert.throws(
        () => validators.check(schema, values),
        (e: unknown) => e instanceof ValidationError && message.test(e.message),
        JSON.stringify(values),
      )
    }
  })

  it('allows missing required attributes in partial mode (templates), still checks types', () => {
    validators.check(schema, { member: false }, true)
    assert.throws(() => validators.check(schema, { age: 'x' }, true), ValidationError)
  })
})

describe('attribute validators stay bounded', () => {
  it("keeps at most its cache size of compiled schemas, in its cache and in Ajv's", () => {
    const validators = new AttributeValidators()
    for (let i = 0; i < 1200; i++) {
      const versioned = { ...schema, id: `schema-${i}` }
      validators.check(versioned, { name: `n${i}`, age: i })
      assert.throws(() => validators.check(versioned, { name: 'n' }), /"age" is required/)
    }
    // Ajv's own cache is private; it is where compiled schemas piled up before (+2 per version).
    const internals = validators as unknown as { cache: Map<string, unknown>; ajv: { _cache: Map<unknown, unknown> } }
    assert.equal(internals.cache.size, 1000)
    assert.ok(internals.ajv._cache.size < 10, `Ajv holds ${internals.ajv._cache.size} schemas`)
  })
})
