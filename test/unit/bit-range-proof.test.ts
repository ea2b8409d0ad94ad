import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { before, describe, it } from 'node:test'
import { bls12_381 } from '@noble/curves/bls12-381.js'
import mcl from 'mcl-wasm'
import { FixedBase } from '../../src/crypto/bbs/fixed-base.js'
import { proveRange, rangeBits, rangeChallenge, rangeGenerators, rangeProofLength, verifyRange, type RangeStatement } from '../../src/crypto/bbs/bit-range-proof.js'
import { createGenerators } from '../../src/crypto/bbs/range-generators.js'
import { initMcl } from '../../src/crypto/bbs/mcl-curve.js'
import { decompose, rangeWeights } from '../../src/crypto/bbs/range-weights.js'

const FIXTURES = new URL('../../../shared/fixtures/bbs-ietf/bls12-381-sha-256/', import.meta.url)
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const context = new TextEncoder().encode('["credential-service/anonymous-proof/v1","did:example:verifier","nonce-1"]')
const statement = (min: bigint, maxExclusive: bigint, extra: Partial<RangeStatement> = {}): RangeStatement => ({ label: 'test/range-bits', min, maxExclusive, context, ...extra })

describe('range weights (bit decomposition of an arbitrary range)', () => {
  it('every x in [0, B] has bits over the weights, and the weights sum to B (exhaustive to B = 600)', () => {
    for (let max = 0n; max <= 600n; max++) {
      const weights = rangeWeights(max)
      assert.equal(weights.reduce((a, b) => a + b, 0n), max, `sum for B=${max}`)
      assert.equal(weights.length, max === 0n ? 0 : max.toString(2).length, `bit count for B=${max}`)
      for (let x = 0n; x <= max; x++) {
        const bits = decompose(x, weights)
        assert.equal(bits.reduce((sum, b, j) => sum + (b ? weights[j]! : 0n), 0n), x, `B=${max} x=${x}`)
      }
      assert.throws(() => decompose(max + 1n, weights), RangeError)
    }
  })

  it('large ranges: the domains the service proves over, edges and random values', () => {
    for (const max of [(1n << 50n) - 1n, (1n << 50n) - 180_001n, 3_652_058n, (1n << 64n) - 1n]) {
      const weights = rangeWeights(max)
      for (const x of [0n, 1n, max - 1n, max, max / 3n, (max * 7n) / 11n]) {
        assert.equal(decompose(x, weights).reduce((sum, b, j) => sum + (b ? weights[j]! : 0n), 0n), x)
      }
    }
  })
})

describe('range generators (IETF BBS create_generators)', () => {
  it("reproduces the draft's own generators for its api_id (shared IETF fixtures)", () => {
    const fixture = JSON.parse(readFileSync(new URL('generators.json', FIXTURES), 'utf8')) as { P1: string; Q1: string; MsgGenerators: string[] }
    const api = 'BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_H2G_HM2S_'
    const generated = createGenerators(1 + fixture.MsgGenerators.length, new TextEncoder().encode(`${api}MESSAGE_GENERATOR_SEED`), api).map(hex)
    assert.equal(generated[0], fixture.Q1)
    assert.deepEqual(generated.slice(1), fixture.MsgGenerators)
    assert.equal(hex(createGenerators(1, new TextEncoder().encode(`${api}BP_MESSAGE_GENERATOR_SEED`), api)[0]!), fixture.P1)
  })
})

describe('bit-decomposition range proof', () => {
  before(() => initMcl())

  it('G and H are distinct prime-order points that noble decodes like mcl encodes them', () => {
    const { bytes } = rangeGenerators('test/range-bits')
    assert.notEqual(hex(bytes[0]), hex(bytes[1]))
    for (const b of bytes) bls12_381.G1.Point.fromBytes(b).assertValidity()
  })

  it('fixed-base tables multiply like mcl does: 0, 1, r − 1, zero windows, random scalars', () => {
    const { h } = rangeGenerators('test/range-bits')
    const table = new FixedBase(h)
    const r = bls12_381.fields.Fr.ORDER
    const random = Array.from({ length: 20 }, () => BigInt(`0x${hex(crypto.getRandomValues(new Uint8Array(32)))}`) % r)
    for (const k of [0n, 1n, 255n, 256n, 1n << 64n, (1n << 128n) + 1n, r - 1n, ...random]) {
      const expected = new mcl.Fr()
      expected.setStr(k.toString(16), 16)
      assert.equal(hex(table.mul(k).serialize()), hex(mcl.mul(h, expected).serialize()), `k = ${k}`)
    }
    // What mul returns is the caller's: changing it leaves the table as it was.
    const one = table.mul(1n)
    one.setHashOf('something else')
    assert.equal(hex(table.mul(1n).serialize()), hex(h.serialize()))
  })

  it('proves and verifies at the edges of ranges of many widths, including width 1', () => {
    const ranges: Array<[bigint, bigint]> = [[0n, 1n], [5n, 6n], [0n, 2n], [7n, 9n], [100n, 164n], [0n, 733_368n], [562_949_953_601_312n, 1n << 50n], [0n, 1n << 50n]]
    for (const [min, maxExclusive] of ranges) {
      for (const value of new Set([min, maxExclusive - 1n, (min + maxExclusive) / 2n])) {
        const made = proveRange(statement(min, maxExclusive), value)
        assert.equal(made.proof.length, rangeProofLength(min, maxExclusive), `${min}..${maxExclusive}`)
        const commitment = verifyRange(statement(min, maxExclusive), made.proof)
        assert.ok(commitment, `[${min}, ${maxExclusive}) at ${value}`)
        assert.equal(hex(commitment), hex(made.commitment))
      }
    }
    assert.equal(rangeBits(562_949_953_601_312n, 1n << 50n), 49)
    assert.equal(rangeBits(0n, 733_368n), 20)
  })

  it('the commitment opens to the value with the returned blinding (what the composite proof uses)', () => {
    const { bytes } = rangeGenerators('test/range-bits')
    const made = proveRange(statement(10n, 1_000n), 500n)
    const G = bls12_381.G1.Point.fromBytes(bytes[0])
    const H = bls12_381.G1.Point.fromBytes(bytes[1])
    const r = BigInt(`0x${hex(made.blinding.slice().reverse())}`)
    assert.equal(hex(G.multiply(500n).add(H.multiply(r)).toBytes(true)), hex(made.commitment))
  })

  it('refuses to prove a value outside the range', () => {
    assert.throws(() => proveRange(statement(10n, 20n), 20n), RangeError)
    assert.throws(() => proveRange(statement(10n, 20n), 9n), RangeError)
    assert.throws(() => proveRange(statement(20n, 20n), 20n), RangeError)
  })

  it('fails for any other statement: bounds off by one, another context or label', () => {
    const made = proveRange(statement(18n, 200n), 36n)
    assert.ok(verifyRange(statement(18n, 200n), made.proof))
    // Same bit count, other weights or offset: the sum relation or the challenge no longer holds.
    for (const [min, max] of [[17n, 200n], [19n, 200n], [18n, 199n], [18n, 201n]] as const) {
      assert.equal(rangeBits(min, max), rangeBits(18n, 200n))
      assert.equal(verifyRange(statement(min, max), made.proof), undefined, `[${min}, ${max})`)
    }
    assert.equal(verifyRange(statement(18n, 200n, { context: new Uint8Array(1) }), made.proof), undefined)
    assert.equal(verifyRange(statement(18n, 200n, { label: 'test/other' }), made.proof), undefined)
  })

  it('fails for an edit anywhere: commitment, Schnorr part, bit commitments, announcements, challenges, responses, length', () => {
    const made = proveRange(statement(0n, 1_000n), 321n)
    const bits = rangeBits(0n, 1_000n)
    // Offsets into C, T, s, then per bit C_j, A0_j, A1_j (48 bytes each), c0_j, z0_j, z1_j (32 each).
    const offsets = [10, 60, 127, ...[0, 1, 2].map((k) => 128 + 48 * k + 5), ...[0, 1, 2].map((k) => 128 + 144 + 32 * k + 31), 128 + 240 * (bits - 1) + 200]
    for (const offset of offsets) {
      const edited = made.proof.slice()
      edited[offset]! ^= 0x01
      assert.equal(verifyRange(statement(0n, 1_000n), edited), undefined, `byte ${offset}`)
    }
    assert.equal(verifyRange(statement(0n, 1_000n), made.proof.subarray(0, made.proof.length - 1)), undefined)
    assert.equal(verifyRange(statement(0n, 1_000n), new Uint8Array(made.proof.length)), undefined)
  })

  it('refuses a non-canonical scalar (>= r) in place of a valid one', () => {
    const made = proveRange(statement(0n, 16n), 3n)
    const at = 128 + 144 // c0 of bit 0
    const c0 = BigInt(`0x${hex(made.proof.subarray(at, at + 32))}`)
    // r < 2^255 and 2^256 − r > r: every scalar has a 32-byte alias c0 + r.
    const aliased = c0 + bls12_381.fields.Fr.ORDER
    const edited = made.proof.slice()
    edited.set(Buffer.from(aliased.toString(16).padStart(64, '0'), 'hex'), at)
    assert.equal(verifyRange(statement(0n, 16n), edited), undefined)
  })

  it('a proof whose points carry a small-order part gets the same answer from every verification', () => {
    // (0, 2) is on y² = x³ + 4 and has order 3: outside G1. Width 1 (no bits): C = min·G + ρ·H and
    // a Schnorr proof (T, s) of ρ, with the order-3 point added to T. Its G1 equation holds, so it
    // is accepted, every time: before cofactor clearing, about one verification in three was.
    const Fr = bls12_381.fields.Fr
    const Point = bls12_381.G1.Point
    const torsion = new Point(0n, 2n, 1n)
    assert.ok(torsion.multiplyUnsafe(3n).is0() && !torsion.is0())
    const { bytes } = rangeGenerators('test/range-bits')
    const G = Point.fromBytes(bytes[0])
    const H = Point.fromBytes(bytes[1])
    const min = 7n
    const rho = 123_456_789n
    const k = 987_654_321n
    const C = G.multiply(min).add(H.multiply(rho)).toBytes(true)
    const T = compressUnchecked(H.multiply(k).add(torsion))
    const c = rangeChallenge(statement(min, min + 1n), [C, T])
    const s = Fr.add(k, Fr.mul(c, rho))
    const proof = Buffer.concat([C, T, Buffer.from(s.toString(16).padStart(64, '0'), 'hex')])
    const answers = Array.from({ length: 24 }, () => verifyRange(statement(min, min + 1n), proof) !== undefined)
    assert.deepEqual(answers, Array(24).fill(true))
    // The same proof with the G1 part wrong (another ρ in s) is refused every time.
    const wrong = Buffer.concat([C, T, Buffer.from(Fr.add(s, 1n).toString(16).padStart(64, '0'), 'hex')])
    assert.ok(Array.from({ length: 24 }, () => verifyRange(statement(min, min + 1n), wrong)).every((v) => v === undefined))
  })

  it('two proofs of the same value share nothing: fresh commitment and bits each time', () => {
    const a = proveRange(statement(0n, 100n), 42n)
    const b = proveRange(statement(0n, 100n), 42n)
    assert.notEqual(hex(a.commitment), hex(b.commitment))
    assert.notEqual(hex(a.proof.subarray(128, 176)), hex(b.proof.subarray(128, 176)))
  })
})

/** ZCash compressed form of any curve point (noble's toBytes refuses points outside G1). */
function compressUnchecked(point: InstanceType<typeof bls12_381.G1.Point>): Uint8Array {
  const p = bls12_381.fields.Fp.ORDER
  const { x, y } = point.toAffine()
  const out = Buffer.from(x.toString(16).padStart(96, '0'), 'hex')
  out[0]! |= 0x80 | (y > (p - 1n) / 2n ? 0x20 : 0)
  return out
}
