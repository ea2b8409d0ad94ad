/**
 * Callback signatures, event bodies, back-off and route access, without a database. Real parts:
 * node:crypto Ed25519, jose (verifying independently of the signer). Faked: the key store (an
 * in-memory stand-in holding real Ed25519 keys).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto'
import { flattenedVerify, importJWK } from 'jose'
import { ManualClock } from '../helpers/test-app.js'
import { CallbackSigner, CALLBACK_JWS_TYP, RETIRED_KEY_LISTED_MS } from '../../src/modules/callbacks/callback-signer.js'
import { checkEvent, eventBodyBytes, MAX_EVENT_DATA_BYTES } from '../../src/modules/callbacks/callback-event.js'
import { isPermanentFailure } from '../../src/modules/callbacks/callback-dispatcher.js'
import { accessOf } from '../../src/plugins/route-access.js'
import { DependencyUnavailableError, ValidationError } from '../../src/errors.js'
import type { KeyStore, PublicKeyInfo, SigningKey } from '../../src/modules/keys/key-store.js'

function keyPair(kid: string, status: 'active' | 'retired', retiredAt: Date | null = null): SigningKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  return {
    kid,
    owner: 'service',
    purpose: 'callback-signing',
    algorithm: 'Ed25519',
    publicKey: new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')),
    status,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    retiredAt,
    privateKey,
    publicKeyObject: publicKey,
  }
}

function fakeKeys(active: SigningKey, others: PublicKeyInfo[] = []): KeyStore {
  return {
    activeSigningKey: async (owner, purpose) => {
      assert.equal(owner, 'service')
      assert.equal(purpose, 'callback-signing')
      return active
    },
    list: async () => [...others, active],
  } as Partial<KeyStore> as KeyStore
}

describe('CallbackSigner', () => {
  const clock = new ManualClock(new Date('2026-11-23T10:00:00.900Z'))
  const active = keyPair('key-active', 'active')
  const signer = new CallbackSigner(fakeKeys(active), clock)
  const body = eventBodyBytes({
    id: 'e-1',
    type: 'presentation.verified',
    created_at: '2026-11-23T10:00:00.000Z',
    data: { b: 1, a: 'ü' },
  })

  it('makes a detached JWS (RFC 7515 Appendix F) over the raw body, checked with node:crypto', async () => {
    const { signature, kid } = await signer.sign(body)
    assert.equal(kid, 'key-active')
    const [protectedHeader, payload, sig, ...rest] = signature.split('.')
    assert.equal(rest.length, 0)
    assert.equal(payload, '', 'the payload is detached')
    assert.deepEqual(JSON.parse(Buffer.from(protectedHeader!, 'base64url').toString()), {
      alg: 'EdDSA',
      kid: 'key-active',
      iat: Math.floor(clock.now().getTime() / 1000),
      typ: CALLBACK_JWS_TYP,
    })
    const input = Buffer.from(`${protectedHeader}.${Buffer.from(body).toString('base64url')}`)
    const publicKey: KeyObject = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(active.publicKey).toString('base64url') },
      format: 'jwk',
    })
    assert.ok(verify(null, input, publicKey, Buffer.from(sig!, 'base64url')))
    const tampered = Buffer.from(`${protectedHeader}.${Buffer.from('{"id":"e-2"}').toString('base64url')}`)
    assert.ok(!verify(null, tampered, publicKey, Buffer.from(sig!, 'base64url')))
  })

  it('verifies with jose against the published JWK', async () => {
    const { signature } = await signer.sign(body)
    const [protectedHeader, , sig] = signature.split('.')
    const { keys } = await signer.jwks()
    const jwk = keys.find((k) => k.kid === 'key-active')!
    const result = await flattenedVerify(
      { protected: protectedHeader!, payload: Buffer.from(body).toString('base64url'), signature: sig! },
      await importJWK(jwk, 'EdDSA'),
      { algorithms: ['EdDSA'] },
    )
    assert.deepEqual(new Uint8Array(result.payload), body)
  })

  it('lists the active key first, recently retired keys, not long-retired or non-Ed25519 ones', async () => {
    const recent = keyPair('key-recent', 'retired', new Date(clock.now().getTime() - 3600_000))
    const old = keyPair('key-old', 'retired', new Date(clock.now().getTime() - RETIRED_KEY_LISTED_MS - 1))
    const bbs: PublicKeyInfo = {
      ...keyPair('key-bbs', 'retired', new Date(clock.now().getTime() - 1)),
      algorithm: 'Bls12381G2',
    }
    const { keys } = await new CallbackSigner(fakeKeys(active, [old, recent, bbs]), clock).jwks()
    assert.deepEqual(
      keys.map((k) => k.kid),
      ['key-active', 'key-recent'],
    )
    assert.deepEqual(keys[0], {
      kty: 'OKP',
      crv: 'Ed25519',
      x: Buffer.from(active.publicKey).toString('base64url'),
      kid: 'key-active',
      alg: 'EdDSA',
      use: 'sig',
    })
  })
})

describe('callback events', () => {
  it('accepts dotted lower-case types and refuses others', () => {
    for (const type of [
      'presentation.submitted',
      'presentation.verified',
      'presentation.failed',
      'presentation.rejected',
      'a.b_c.d',
    ]) {
      assert.doesNotThrow(() => checkEvent({ url: 'https://example.com/hook', type, data: {} }))
    }
    for (const type of [
      'presentation',
      'Presentation.verified',
      'presentation.',
      '.x',
      'presentation.verified!',
      'a.b-c',
      '',
    ]) {
      assert.throws(() => checkEvent({ url: 'https://example.com/hook', type, data: {} }), ValidationError, type)
    }
  })

  it('refuses data that is not a JSON object or is too large', () => {
    const url = 'https://example.com/hook'
    const type = 'presentation.verified'
    assert.throws(() => checkEvent({ url, type, data: [] as unknown as Record<string, unknown> }), ValidationError)
    assert.throws(() => checkEvent({ url, type, data: { n: Number.NaN } }), /not JSON/)
    assert.throws(() => checkEvent({ url, type, data: { f: () => 1 } }), /not JSON/)
    assert.throws(() => checkEvent({ url, type, data: { big: 'x'.repeat(MAX_EVENT_DATA_BYTES) } }), /larger than/)
    assert.throws(() => checkEvent({ url: '', type, data: {} }), /URL/)
  })

  it('serialises the body in RFC 8785 form, whatever the key order', () => {
    const a = eventBodyBytes({ id: 'e', type: 't.x', created_at: 'c', data: { z: 1, a: [1, { y: 2, b: 3 }] } })
    const b = eventBodyBytes({ data: { a: [1, { b: 3, y: 2 }], z: 1 }, created_at: 'c', type: 't.x', id: 'e' })
    assert.deepEqual(a, b)
    assert.equal(
      Buffer.from(a).toString(),
      '{"created_at":"c","data":{"a":[1,{"b":3,"y":2}],"z":1},"id":"e","type":"t.x"}',
    )
  })
})

describe('retry policy', () => {
  it('gives up at once only when retrying cannot help', () => {
    assert.equal(isPermanentFailure(new ValidationError('x resolves to a loopback address, refused')), true)
    assert.equal(isPermanentFailure(new DependencyUnavailableError('x is unreachable (ECONNREFUSED)')), false)
    assert.equal(isPermanentFailure(new Error('anything else')), false)
  })
})

describe('route access', () => {
  it('serves the callback JWKS publicly', () => {
    assert.equal(accessOf('GET', '/api/callbacks/jwks'), 'public')
    assert.equal(accessOf('HEAD', '/api/callbacks/jwks'), 'public')
  })
})
