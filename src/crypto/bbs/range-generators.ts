import { bls12_381 } from '@noble/curves/bls12-381.js'
import { expand_message_xmd } from '@noble/curves/abstract/hash-to-curve.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { concatBytes } from '../encoding.js'

/**
 * Independent G1 generators hashed from a public label, by the IETF BBS draft's procedure
 * (draft-irtf-cfrg-bbs-signatures §4.1.1 create_generators, BLS12-381-SHA-256 suite:
 * expand_message_xmd with SHA-256, hash_to_curve BLS12381G1_XMD:SHA-256_SSWU_RO_ of RFC 9380).
 * Nobody knows a discrete-log relation between them: what makes Pedersen commitments over
 * them binding. The same function with the draft's api_id reproduces the draft's own generators
 * (test/unit/range-generators.test.ts reads them from the shared IETF fixtures).
 */
const EXPAND_LEN = 48
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

/** `count` generators as 48-byte compressed points (ZCash encoding, as the draft and arkworks write them). */
export function createGenerators(count: number, generatorSeed: Uint8Array, apiId: string): Uint8Array[] {
  if (!Number.isSafeInteger(count) || count < 1 || count > 2 ** 16) throw new RangeError(`generator count must be 1..65536: ${count}`)
  const seedDst = utf8(`${apiId}SIG_GENERATOR_SEED_`)
  const generatorDst = utf8(`${apiId}SIG_GENERATOR_DST_`)
  let v = expand_message_xmd(generatorSeed, seedDst, EXPAND_LEN, sha256)
  const out: Uint8Array[] = []
  for (let i = 1; i <= count; i++) {
    v = expand_message_xmd(concatBytes([v, i2osp(i, 8)]), seedDst, EXPAND_LEN, sha256)
    out.push(bls12_381.G1.hashToCurve(v, { DST: generatorDst }).toBytes(true))
  }
  return out
}

/** The message generators of an api_id, seeded as the draft seeds them (`api_id || "MESSAGE_GENERATOR_SEED"`). */
export function messageGenerators(count: number, apiId: string): Uint8Array[] {
  return createGenerators(count, utf8(`${apiId}MESSAGE_GENERATOR_SEED`), apiId)
}

function i2osp(value: number, length: number): Uint8Array {
  const out = new Uint8Array(length)
  for (let i = length - 1, rest = value; i >= 0; i--, rest = Math.floor(rest / 256)) out[i] = rest % 256
  return out
}
