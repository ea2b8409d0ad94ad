import mcl from 'mcl-wasm'
import { bls12_381 } from '@noble/curves/bls12-381.js'
import { expand_message_xmd } from '@noble/curves/abstract/hash-to-curve.js'
import { bytesToNumberBE, numberToBytesBE, numberToBytesLE } from '@noble/curves/utils.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { concatBytes } from '../encoding.js'
import { FixedBase } from './fixed-base.js'
import { fr, type G1 } from './mcl-curve.js'
import { createGenerators } from './range-generators.js'
import { decompose, rangeWeights } from './range-weights.js'

/**
 * A range proof on a Pedersen commitment over BLS12-381 G1: x = v − min is written in bits over
 * the weights of range-weights.ts (so the range [min, maxExclusive) is shown exactly), each bit
 * committed as C_j = b_j·G + r_j·H and shown to be 0 or 1 by an OR of two Schnorr proofs
 * (Cramer, Damgård, Schoenmakers, CRYPTO '94), and
 *   C − min·G − Σ w_j·C_j = ρ·H
 * by a Schnorr proof of ρ (so C opens to min + Σ w_j·b_j), all non-interactive with one
 * Fiat–Shamir challenge over the whole statement. C keeps a blinding of its own, so even a range
 * of width 1 (no bits) has a hiding, non-identity commitment. C itself is tied to the BBS-signed
 * message by the composite proof (a Pedersen-commitment statement and witness equality,
 * bbs-core.ts), and C, the bound and the verifier's nonce are all in the challenge.
 *
 * Why not the library's own bound checks: see docs/anonymous-proofs.md (its Bulletproofs++
 * always proves two 64-bit ranges, ~580 ms to derive here; this proves ℓ ≤ 50 bits with mcl's
 * WebAssembly group arithmetic, ~27 ms to prove and ~28 ms to verify 49 bits).
 *
 * Proof bytes: C, T (48 each, compressed G1), s (32, big-endian scalar), then per bit C_j, A0_j,
 * A1_j (48 each) and c0_j, z0_j, z1_j (32 each): 128 + 240·ℓ bytes. Verification is one multi-scalar
 * multiplication over all of it with random weights (batch verification, Bellare–Garay–Rabin '98).
 */
const Fr = bls12_381.fields.Fr
const ORDER = Fr.ORDER
const POINT = 48
const SCALAR = 32
const HEADER = 2 * POINT + SCALAR
const PER_BIT = 3 * POINT + 3 * SCALAR
const CHALLENGE_DST = new TextEncoder().encode('credential-service/range-bits/v1/challenge')


interface Generators {
  g: G1
  h: G1
  /** Multiples tables for the prover, built on its first proof with this label (~0.1 s, ~4 MB). */
  tables?: { g: FixedBase; h: FixedBase }
  /** Compressed, for the composite proof's commitment key and the transcript. */
  bytes: [Uint8Array, Uint8Array]
}

export interface RangeStatement {
  /** Label of the generators (the issuer's DID document names it). */
  label: string
  min: bigint
  maxExclusive: bigint
  /** Bound into the challenge: the verifier's nonce and DID (anonymous-proof-format.ts proofNonce). */
  context: Uint8Array
}

export interface RangeProof {
  /** C = v·G + r·H, compressed: the composite proof's Pedersen statement. */
  commitment: Uint8Array
  /** r, 32 bytes little-endian: the composite proof's witness (Dock's scalar encoding). */
  blinding: Uint8Array
  proof: Uint8Array
}

const generatorCache = new Map<string, Generators>()
/** G and H of a label (createGenerators with api_id = label); four labels kept per thread. */
export function rangeGenerators(label: string): Generators {
  let found = generatorCache.get(label)
  if (!found) {
    const bytes = createGenerators(2, new TextEncoder().encode(`${label}/PEDERSEN_SEED`), label) as [Uint8Array, Uint8Array]
    found = { g: point(bytes[0])!, h: point(bytes[1])!, bytes }
    if (generatorCache.size >= 4) generatorCache.delete(generatorCache.keys().next().value!)
    generatorCache.set(label, found)
  }
  return found
}

/** Bits a range proof over [min, maxExclusive) takes: bitlength(maxExclusive − min − 1). */
export function rangeBits(min: bigint, maxExclusive: bigint): number {
  return rangeWeights(maxExclusive - min - 1n).length
}

/** Length of a proof over [min, maxExclusive) in bytes. */
export const rangeProofLength = (min: bigint, maxExclusive: bigint): number => HEADER + PER_BIT * rangeBits(min, maxExclusive)

/** Commits to `value` and proves min <= value < maxExclusive; RangeError when it is not. */
export function proveRange(statement: RangeStatement, value: bigint): RangeProof {
  const { min, maxExclusive } = checkStatement(statement)
  if (value < min || value >= maxExclusive) throw new RangeError(`${value} is outside [${min}, ${maxExclusive})`)
  const generators = rangeGenerators(statement.label)
  const { g } = generators
  generators.tables ??= { g: new FixedBase(generators.g), h: new FixedBase(generators.h) }
  const tables = generators.tables
  const weights = rangeWeights(maxExclusive - min - 1n)
  const bits = decompose(value - min, weights)

  const blindings = bits.map(() => randomScalar())
  const blinding = randomScalar()
  const commitment = mcl.add(tables.g.mul(value), tables.h.mul(blinding))
  // ρ: the blinding C has beyond the bits', proven known by a Schnorr proof (T, s).
  const rest = blindings.reduce((sum, r, j) => Fr.sub(sum, Fr.mul(r, weights[j]!)), blinding)
  const schnorrNonce = randomScalar()
  const schnorrCommitment = tables.h.mul(schnorrNonce).serialize()

  // Per bit: the real branch's nonce, the simulated branch's challenge and response.
  const rounds = bits.map((bit, j) => {
    const masked = tables.h.mul(blindings[j]!)
    const c = bit ? mcl.add(masked, g) : masked
    const nonce = randomScalar()
    const simChallenge = randomScalar()
    const simResponse = randomScalar()
    const real = tables.h.mul(nonce)
    // Simulated: A = z·H − c·(C_j − s·G) with s = 1 − bit; C_j − s·G = (bit − s)·G + r_j·H.
    const sign = bit ? 1n : ORDER - 1n
    const simulated = mcl.add(tables.h.mul(Fr.sub(simResponse, Fr.mul(simChallenge, blindings[j]!))), tables.g.mul(Fr.neg(Fr.mul(simChallenge, sign))))
    const [a0, a1] = bit ? [simulated, real] : [real, simulated]
    return { bit, c, a0, a1, nonce, simChallenge, simResponse }
  })
  const points = rounds.flatMap((round) => [round.c, round.a0, round.a1].map((p) => p.serialize()))
  const challenge = rangeChallenge(statement, [commitment.serialize(), schnorrCommitment, ...points])

  const parts: Uint8Array[] = [commitment.serialize(), schnorrCommitment, numberToBytesBE(Fr.add(schnorrNonce, Fr.mul(challenge, rest)), SCALAR)]
  rounds.forEach((round, j) => {
    const realChallenge = Fr.sub(challenge, round.simChallenge)
    const realResponse = Fr.add(round.nonce, Fr.mul(realChallenge, blindings[j]!))
    const [c0, z0, z1] = round.bit ? [round.simChallenge, round.simResponse, realResponse] : [realChallenge, realResponse, round.simResponse]
    parts.push(points[3 * j]!, points[3 * j + 1]!, points[3 * j + 2]!, ...[c0, z0, z1].map((x) => numberToBytesBE(x, SCALAR)))
  })
  return { commitment: commitment.serialize(), blinding: numberToBytesLE(blinding, SCALAR), proof: concatBytes(parts) }
}

/**
 * The commitment the proof is about when it proves min <= v < maxExclusive for that commitment
 * under this label and context; undefined for anything else (wrong length, bad point or scalar,
 * a failed equation). The caller must still tie the commitment to a signed message.
 */
export function verifyRange(statement: RangeStatement, proof: Uint8Array): Uint8Array | undefined {
  const { min, maxExclusive } = checkStatement(statement)
  const weights = rangeWeights(maxExclusive - min - 1n)
  if (proof.length !== HEADER + PER_BIT * weights.length) return undefined
  const { g, h } = rangeGenerators(statement.label)
  const commitmentBytes = proof.subarray(0, POINT)
  const schnorrBytes = proof.subarray(POINT, 2 * POINT)
  const commitment = point(commitmentBytes)
  const schnorrCommitment = point(schnorrBytes)
  const schnorrResponse = scalarFrom(proof.subarray(2 * POINT, HEADER))
  // C is the one point the composite proof also uses: it must be in the prime-order group. The
  // others need not be: every equation below holds in E(Fp) = G1 × T only if it holds for their
  // G1 components, which is all soundness uses (no secret meets these points).
  if (!commitment || !commitment.isValidOrder() || !schnorrCommitment || schnorrResponse === undefined) return undefined

  const cs: G1[] = []
  const a0s: G1[] = []
  const a1s: G1[] = []
  const scalars: bigint[][] = []
  const pointBytes: Uint8Array[] = []
  for (let j = 0; j < weights.length; j++) {
    const at = HEADER + PER_BIT * j
    const raw = [0, 1, 2].map((k) => proof.subarray(at + k * POINT, at + (k + 1) * POINT))
    const [c, a0, a1] = raw.map(point)
    const s = [0, 1, 2].map((k) => scalarFrom(proof.subarray(at + 3 * POINT + k * SCALAR, at + 3 * POINT + (k + 1) * SCALAR)))
    if (!c || !a0 || !a1 || s.some((x) => x === undefined)) return undefined
    cs.push(c)
    a0s.push(a0)
    a1s.push(a1)
    scalars.push(s as bigint[])
    pointBytes.push(...raw)
  }
  const challenge = rangeChallenge(statement, [commitmentBytes, schnorrBytes, ...pointBytes])

  // With random weights ρ_j, σ_j, τ, one multi-scalar multiplication checks every equation:
  // Σ_j ρ_j(z0·H − A0 − c0·C_j) + σ_j(z1·H − A1 − c1·(C_j − G)) + τ(s·H − T − c·(C − min·G − Σ_j w_j·C_j)) = 0
  const tau = randomWeight()
  const tauC = Fr.mul(tau, challenge)
  let hCoefficient = Fr.mul(tau, schnorrResponse)
  let gCoefficient = Fr.mul(tauC, Fr.create(min))
  const bases: G1[] = [h, g, commitment, schnorrCommitment]
  const coefficients: bigint[] = [0n, 0n, Fr.neg(tauC), Fr.neg(tau)]
  scalars.forEach(([c0, z0, z1], j) => {
    const c1 = Fr.sub(challenge, c0!)
    const rho = randomWeight()
    const sigma = randomWeight()
    hCoefficient = Fr.add(hCoefficient, Fr.add(Fr.mul(rho, z0!), Fr.mul(sigma, z1!)))
    gCoefficient = Fr.add(gCoefficient, Fr.mul(sigma, c1))
    bases.push(a0s[j]!, a1s[j]!, cs[j]!)
    coefficients.push(Fr.neg(rho), Fr.neg(sigma), Fr.sub(Fr.mul(tauC, weights[j]!), Fr.add(Fr.mul(rho, c0!), Fr.mul(sigma, c1))))
  })
  coefficients[0] = hCoefficient
  coefficients[1] = gCoefficient
  return clearCofactor(mcl.mulVec(bases, coefficients.map(fr))).isZero() ? commitmentBytes.slice() : undefined
}

/**
 * h_eff·P (RFC 9380 §8.8.1: h_eff = 0xd201000000010001 maps E(Fp) onto G1 for BLS12-381), by
 * double-and-add, not mcl.mul, whose GLV split assumes P in G1. A proof whose points carry
 * small-order parts leaves such a part in the sum even when every G1 equation holds, and mcl's
 * GLV scrambles it by the random weights: without this, such a proof would pass for one verifier
 * and fail for the next. With it, acceptance is exactly "the G1 equations hold".
 */
function clearCofactor(p: G1): G1 {
  let out = new mcl.G1()
  for (const bit of H_EFF_BITS) {
    out = mcl.dbl(out)
    if (bit === '1') out = mcl.add(out, p)
  }
  return out
}
const H_EFF_BITS = (0xd201000000010001n).toString(2)

function checkStatement(statement: RangeStatement): { min: bigint; maxExclusive: bigint } {
  const { min, maxExclusive } = statement
  if (min < 0n || maxExclusive <= min || maxExclusive > 1n << 64n) throw new RangeError(`a range proof needs 0 <= min < maxExclusive <= 2^64: ${min}, ${maxExclusive}`)
  return { min, maxExclusive }
}

/**
 * The Fiat–Shamir challenge: hash_to_scalar as the IETF BBS draft builds it (expand_message_xmd
 * to 48 bytes, mod r) over G, H, min, B, the context and `points` (C, T, then each bit's C_j,
 * A0_j, A1_j as sent). Exported for verifiers written elsewhere and for tests.
 */
export function rangeChallenge(statement: RangeStatement, points: Uint8Array[]): bigint {
  const generators = rangeGenerators(statement.label).bytes
  const header = new Uint8Array(8 + 8 + 4)
  const view = new DataView(header.buffer)
  view.setBigUint64(0, statement.min)
  view.setBigUint64(8, statement.maxExclusive - 1n)
  view.setUint32(16, statement.context.length)
  const transcript = concatBytes([generators[0], generators[1], header, statement.context, ...points])
  return Fr.create(bytesToNumberBE(expand_message_xmd(transcript, CHALLENGE_DST, 48, sha256)))
}

/** A compressed G1 point on the curve (not the identity); undefined for anything else. */
function point(bytes: Uint8Array): G1 | undefined {
  if (bytes.length !== POINT) return undefined
  const p = new mcl.G1()
  try {
    p.deserialize(bytes)
  } catch {
    return undefined
  }
  return p.isZero() ? undefined : p
}

/** A canonical scalar (< r) from 32 big-endian bytes; undefined when it is not reduced. */
function scalarFrom(bytes: Uint8Array): bigint | undefined {
  const value = bytesToNumberBE(bytes)
  return value < ORDER ? value : undefined
}

/** Uniform mod r: 64 random bytes reduced (bias below 2^-256). */
const randomScalar = (): bigint => Fr.create(bytesToNumberBE(crypto.getRandomValues(new Uint8Array(64))))
/** Batch-verification weights: 128 random bits, non-zero. */
function randomWeight(): bigint {
  const w = bytesToNumberBE(crypto.getRandomValues(new Uint8Array(16)))
  return w === 0n ? 1n : w
}
