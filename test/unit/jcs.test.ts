import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import { canonicalize, jcsSha256Hex } from '../../src/crypto/jcs.js'
import { ValidationError } from '../../src/errors.js'

describe('RFC 8785 canonicalization', () => {
  it('orders keys by UTF-16 code units and serialises numbers as ECMAScript does (RFC 8785 §3.2.3, Appendix B)', () => {
    // RFC 8785 §3.2.3 sorting example: keys of several scripts, compared as UTF-16 code units.
    const sorting = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    }
    // Read the keys off the text itself (JSON.parse would move the index-like key '1' first).
    const keys = [...canonicalize(sorting).matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((m) => JSON.parse(`"${m[1]}"`))
    assert.deepEqual(keys, ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'])
    // Appendix B number samples.
    const samples: Array<[number, string]> = [
      [0, '0'],
      [-0, '0'],
      [1e21, '1e+21'],
      [1e-7, '1e-7'],
      [333333333.3333333, '333333333.3333333'],
      [9007199254740992, '9007199254740992'],
      [0.000001, '0.000001'],
    ]
    for (const [n, text] of samples) assert.equal(canonicalize(n), text)
    assert.equal(canonicalize({ b: [1, { d: true, c: null }], a: 'x' }), '{"a":"x","b":[1,{"c":null,"d":true}]}')
  })

  it('refuses values JSON cannot carry, and hashes the canonical form', () => {
    assert.throws(() => canonicalize({ a: Number.NaN }), /finite/)
    assert.throws(() => canonicalize({ a: undefined }), /undefined/)
    const doc = { z: 1, a: [true] }
    assert.equal(jcsSha256Hex(doc), createHash('sha256').update('{"a":[true],"z":1}').digest('hex'))
    assert.equal(jcsSha256Hex({ a: [true], z: 1 }), jcsSha256Hex(doc))
  })

  it('refuses unpaired surrogates (RFC 8785 §3.1: I-JSON) as invalid input, and keeps paired ones', () => {
    // Client JSON such as {"purpose":"\ud800"} parses to such strings; it is a 400, not a crash.
    assert.throws(
      () => canonicalize({ purpose: 'a\ud800' }),
      (e: Error) => e instanceof ValidationError && /\$\.purpose/.test(e.message),
    )
    assert.throws(() => canonicalize(['\udfff']), ValidationError)
    assert.throws(() => canonicalize({ ['\ud83d']: 1 }), ValidationError)
    assert.equal(canonicalize({ a: '\ud83d\ude00' }), '{"a":"\ud83d\ude00"}')
  })
})
