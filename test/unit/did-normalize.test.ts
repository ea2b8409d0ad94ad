import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { didMethod, normalizeDid } from '../../src/modules/did/did-normalize.js'
import { ValidationError } from '../../src/errors.js'

const KEY = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp'

describe('normalizeDid', () => {
  const cases: [string, string][] = [
    [KEY, KEY],
    [`  ${KEY}\n`, KEY],
    ['DID:KEY:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', KEY],
    ['Did:Key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', KEY],
    [encodeURIComponent(KEY), KEY],
    ['did%3akey%3az6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', KEY],
    [encodeURIComponent(encodeURIComponent(KEY)), KEY],
    ['did:key%3Az6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', KEY],
    [`${KEY}#z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp`, KEY],
    [`${KEY}?versionId=1`, KEY],
    [`${KEY}/path/to#frag`, KEY],
    [encodeURIComponent(`${KEY}#key-1`), KEY],
    // The method-specific id is case-sensitive (base58 here) and kept as is.
    ['did:key:Z6MKITBZ', 'did:key:Z6MKITBZ'],
    // %3A inside the method-specific id is a did:web port, not a separator: kept.
    ['did:web:example.com%3A8443', 'did:web:example.com%3A8443'],
    [encodeURIComponent('did:web:example.com%3A8443:user:alice'), 'did:web:example.com%3A8443:user:alice'],
    ['did:web:example.com:user:alice', 'did:web:example.com:user:alice'],
    ['did:example:123456789abcdefghi', 'did:example:123456789abcdefghi'],
    ['did:example:a::b', 'did:example:a::b'],
    ['did:ethr:0x5:0xb9c5714089478a327f09197987f16f9e5d936e8a', 'did:ethr:0x5:0xb9c5714089478a327f09197987f16f9e5d936e8a'],
  ]
  for (const [input, expected] of cases) {
    it(`normalizes ${JSON.stringify(input)}`, () => assert.equal(normalizeDid(input), expected))
  }

  const malformed: string[] = [
    '',
    '   ',
    'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
    'did:',
    'did:key',
    'did:key:',
    'did::abc',
    'did:ke_y:abc',
    'did:kéy:abc',
    'did:key:abc:',
    'did:key:a b',
    'did:key:abc%zz',
    'did:key:ab$c',
    'did:key:<script>',
    'urn:key:abc',
    'did%3Akey%3A%E0%A4%A',
    `did:example:${'a'.repeat(3000)}`,
  ]
  for (const input of malformed) {
    it(`rejects ${JSON.stringify(input.slice(0, 40))}`, () => {
      assert.throws(() => normalizeDid(input), (e) => e instanceof ValidationError && /DID/.test(e.message))
    })
  }
})

describe('didMethod', () => {
  it('returns the lower-case method name', () => {
    assert.equal(didMethod(KEY), 'key')
    assert.equal(didMethod('DID:WEB:example.com'), 'web')
    assert.equal(didMethod('did:ethr:0x5:0xabc'), 'ethr')
  })
  it('rejects a malformed DID', () => assert.throws(() => didMethod('nope'), ValidationError))
})
