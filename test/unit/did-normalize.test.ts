import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { didFromPathSegment, didMethod, normalizeDid } from '../../src/modules/did/did-normalize.js'
import { ValidationError } from '../../src/errors.js'

const KEY = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp'

describe('normalizeDid', () => {
  const cases: [string, string][] = [
    [KEY, KEY],
    [`  ${KEY}\n`, KEY],
    ['DID:KEY:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', KEY],
    ['Did:Key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', KEY],
    [`${KEY}#z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp`, KEY],
    [`${KEY}?versionId=1`, KEY],
    [`${KEY}/path/to#frag`, KEY],
    // The method-specific id is case-sensitive (base58 here) and kept as is.
    ['did:key:Z6MKITBZ', 'did:key:Z6MKITBZ'],
    // %3A inside the method-specific id is a did:web port, not a separator: kept.
    ['did:web:example.com%3A8443', 'did:web:example.com%3A8443'],
    ['did:web:example.com%3a8443:user:alice', 'did:web:example.com%3a8443:user:alice'],
    ['did:web:example.com:user:alice', 'did:web:example.com:user:alice'],
    ['did:example:123456789abcdefghi', 'did:example:123456789abcdefghi'],
    ['did:example:a::b', 'did:example:a::b'],
    [
      'did:ethr:0x5:0xb9c5714089478a327f09197987f16f9e5d936e8a',
      'did:ethr:0x5:0xb9c5714089478a327f09197987f16f9e5d936e8a',
    ],
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
      assert.throws(
        () => normalizeDid(input),
        (e) => e instanceof ValidationError && /DID/.test(e.message),
      )
    })
  }
})

describe('normalizeDid: nothing is decoded; what is still encoded, or no did:web URL, is refused', () => {
  // A DID reaches normalizeDid decoded once (didFromPathSegment) or as sent (JSON, headers):
  // encoded separators or an encoded "%" mean it was encoded once more than that.
  const refused: [string, RegExp][] = [
    [encodeURIComponent(KEY), /still percent-encoded/],
    ['did%3akey%3az6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', /still percent-encoded/],
    [encodeURIComponent(encodeURIComponent(KEY)), /still percent-encoded/],
    ['did:key%3Az6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', /still percent-encoded/],
    [encodeURIComponent(`${KEY}#key-1`), /still percent-encoded/],
    // The DID after one decode of its path segment encoded twice.
    ['did%3Aweb%3Alocalhost%253A39250', /still percent-encoded/],
    ['did:web:localhost%253A39250', /percent-encoded more than once/],
    ['did:web:example.com%2Fadmin', /only percent-encoding can be %3A/],
    ['did:web:example.com:a%2Fb', /path segment "a%2Fb"/],
    [`${KEY}%23key-1`, /percent-encoding, which did:key identifiers do not use/],
    ['did:example:a%20b', /percent-encoding, which did:example identifiers do not use/],
    // A did:web that names no single document URL (did:web §3.2) is refused here too.
    ['did:web:example.com%3A0', /port is out of range/],
    ['did:web:example.com::alice', /path segment ""/],
    ['did:web:2130706433', /numeric last label/],
  ]
  for (const [input, message] of refused) {
    it(`refuses ${JSON.stringify(input.slice(0, 48))}`, () => {
      assert.throws(
        () => normalizeDid(input),
        (e) => e instanceof ValidationError && message.test(e.message),
      )
    })
  }
})

describe('didFromPathSegment: one decode of a URL path segment', () => {
  const cases: [string, string][] = [
    // The DID encoded as one segment (encodeURIComponent): decoded once, its %3A port kept.
    [encodeURIComponent('did:web:localhost%3A39250'), 'did:web:localhost%3A39250'],
    ['did%3Aweb%3Alocalhost%253A39250', 'did:web:localhost%3A39250'],
    [encodeURIComponent('did:web:localhost:39250'), 'did:web:localhost:39250'],
    [encodeURIComponent(`${KEY}#key-1`), `${KEY}#key-1`],
    // The DID written as is: %3A is its own (did:web's port), other escapes are the path's.
    ['did:web:localhost%3A39250', 'did:web:localhost%3A39250'],
    ['did:web:localhost%3a39250:user:alice', 'did:web:localhost%3a39250:user:alice'],
    ['did:web:localhost%253A39250', 'did:web:localhost%3A39250'],
    [`${KEY}%23key-1`, `${KEY}#key-1`],
    [KEY, KEY],
    // Encoded twice: one decode leaves it encoded, for normalizeDid to refuse.
    [encodeURIComponent(encodeURIComponent('did:web:localhost%3A39250')), 'did%3Aweb%3Alocalhost%253A39250'],
  ]
  for (const [segment, did] of cases) it(`${segment} -> ${did}`, () => assert.equal(didFromPathSegment(segment), did))

  it('gives what normalizeDid accepts only for a DID encoded at most once', () => {
    const did = 'did:web:localhost%3A39250'
    assert.equal(normalizeDid(didFromPathSegment(encodeURIComponent(did))), did)
    assert.equal(normalizeDid(didFromPathSegment(did)), did)
    assert.throws(() => normalizeDid(didFromPathSegment(encodeURIComponent(encodeURIComponent(did)))), ValidationError)
  })

  it('refuses invalid percent-encoding', () => {
    assert.throws(
      () => didFromPathSegment('did%3Akey%3A%E0%A4%A'),
      (e) => e instanceof ValidationError && /percent-encoding/.test(e.message),
    )
  })
})

describe('didMethod', () => {
  it('returns the lower-case method name', () => {
    assert.equal(didMethod(KEY), 'key')
    assert.equal(didMethod('DID:WEB:example.com'), 'web')
    assert.equal(didMethod('did:ethr:0x5:0xabc'), 'ethr')
  })
  it('rejects a malformed DID', () => assert.throws(() => didMethod('nope'), ValidationError))
})
