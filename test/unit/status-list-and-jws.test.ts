import assert from 'node:assert/strict'
import { generateKeyPairSync, verify } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { describe, it } from 'node:test'
import { decodeStatusList, encodeStatusList, postgresBitNumber, statusBit } from '../../src/crypto/bitstring.js'
import { decodeCompactJws, signCompactJws } from '../../src/crypto/jws.js'

describe('bitstring status list encoding (W3C Bitstring Status List §3.2)', () => {
  it('numbers bits from the most significant bit of the first byte', () => {
    const bits = new Uint8Array(4)
    bits[0] = 0b1000_0000 // index 0
    bits[1] = 0b0000_0001 // index 15
    assert.equal(statusBit(bits, 0), true)
    assert.equal(statusBit(bits, 1), false)
    assert.equal(statusBit(bits, 15), true)
    assert.equal(statusBit(bits, 8), false)
    assert.throws(() => statusBit(bits, 32), RangeError)
  })

  it('is multibase base64url of the GZIP of the bits, and round-trips', () => {
    const bits = new Uint8Array(16_384)
    bits[100] = 0x21
    const encoded = encodeStatusList(bits)
    assert.equal(encoded[0], 'u')
    assert.ok(!/[+/=]/.test(encoded))
    assert.deepEqual(decodeStatusList(encoded), bits)
    // Any GZIP of the same bits decodes the same (the format does not pin the compressor).
    assert.deepEqual(decodeStatusList(`u${gzipSync(bits, { level: 1 }).toString('base64url')}`), bits)
    assert.throws(() => decodeStatusList('z123'), /multibase/)
  })

  it("maps a list index to PostgreSQL set_bit's numbering (LSB first within a byte)", () => {
    // set_bit(bytea, n) touches byte n/8, bit n%8 counted from the least significant bit.
    for (const index of [0, 1, 7, 8, 13, 131_071]) {
      const n = postgresBitNumber(index)
      assert.equal(n >> 3, index >> 3)
      const mask = 1 << (n & 7)
      assert.equal(mask, 0x80 >> (index & 7))
    }
  })
})

describe('compact EdDSA JWS', () => {
  it('is signed by jose, verifies with an independent implementation (node:crypto), and decodes', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519')
    const jws = await signCompactJws({ typ: 'JWT', kid: 'did:example:1#k' }, { iss: 'did:example:1', n: 1 }, privateKey)
    const [h, p, s] = jws.split('.') as [string, string, string]
    // RFC 7515 §5.2: the signature is over ASCII(BASE64URL(header) || '.' || BASE64URL(payload)).
    assert.ok(verify(null, Buffer.from(`${h}.${p}`, 'ascii'), publicKey, Buffer.from(s, 'base64url')))
    assert.deepEqual(JSON.parse(Buffer.from(h, 'base64url').toString()), {
      typ: 'JWT',
      kid: 'did:example:1#k',
      alg: 'EdDSA',
    })
    assert.deepEqual(decodeCompactJws(jws)?.payload, { iss: 'did:example:1', n: 1 })
    assert.equal(decodeCompactJws('a.b'), undefined)
    assert.equal(decodeCompactJws('!!.!!.!!'), undefined)
    // The header cannot downgrade the algorithm: the key decides it.
    const other = await signCompactJws({ alg: 'none' }, {}, privateKey)
    assert.equal(decodeCompactJws(other)?.header.alg, 'EdDSA')
    // A key with no JWS algorithm here is refused rather than signed with a guess.
    await assert.rejects(
      signCompactJws({}, {}, generateKeyPairSync('x25519').privateKey),
      /no JWS algorithm for a x25519 key/,
    )
  })
})
