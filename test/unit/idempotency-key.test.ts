import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseIdempotencyKey, requestFingerprint } from '../../src/modules/idempotency/idempotency-key.js'
import { ValidationError } from '../../src/errors.js'

describe('Idempotency-Key header (draft-ietf-httpapi-idempotency-key-header §2, RFC 8941 §3.3.3)', () => {
  it('reads a Structured Field string, undoing its two escapes', () => {
    assert.equal(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"'), '8e03978e-40d5-43e8-bc93-6894a57f9324')
    assert.equal(parseIdempotencyKey('"say \\"hi\\" \\\\ bye"'), 'say "hi" \\ bye')
    assert.equal(parseIdempotencyKey('  "padded"  '), 'padded')
  })

  it('takes a bare token, a UUID starting with a digit included', () => {
    assert.equal(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324'), '8e03978e-40d5-43e8-bc93-6894a57f9324')
    assert.equal(parseIdempotencyKey('order:42/retry'), 'order:42/retry')
  })

  it('absent is undefined; anything malformed is a ValidationError', () => {
    assert.equal(parseIdempotencyKey(undefined), undefined)
    for (const bad of [
      '',
      '""',
      '"open',
      '"a\\nb"',
      '"tab\there"',
      'two words',
      '"x", "y"',
      '"é"',
      `"${'a'.repeat(256)}"`,
      'a'.repeat(256),
    ]) {
      assert.throws(() => parseIdempotencyKey(bad), ValidationError, JSON.stringify(bad))
    }
    assert.throws(() => parseIdempotencyKey(['"a"', '"b"']), ValidationError)
    assert.equal(parseIdempotencyKey(`"${'a'.repeat(255)}"`)?.length, 255)
  })
})

describe('request fingerprint', () => {
  it('ignores key order and whitespace of the body (RFC 8785), not its values, method or path', () => {
    const base = requestFingerprint('POST', '/api/issuer/did:key:z1/issue', { a: 1, b: { c: [1, 2] } })
    assert.match(base, /^[0-9a-f]{64}$/)
    assert.equal(
      requestFingerprint('POST', '/api/issuer/did:key:z1/issue', JSON.parse('{ "b": {"c":[1,2]}, "a": 1.0 }')),
      base,
    )
    assert.notEqual(requestFingerprint('POST', '/api/issuer/did:key:z1/issue', { a: 2, b: { c: [1, 2] } }), base)
    assert.notEqual(requestFingerprint('POST', '/api/issuer/did:key:z1/issue', { a: 1, b: { c: [2, 1] } }), base)
    assert.notEqual(requestFingerprint('POST', '/api/issuer/did:key:z2/issue', { a: 1, b: { c: [1, 2] } }), base)
    assert.notEqual(requestFingerprint('PUT', '/api/issuer/did:key:z1/issue', { a: 1, b: { c: [1, 2] } }), base)
  })
})
