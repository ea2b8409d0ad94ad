import { bls12_381 } from '@noble/curves/bls12-381.js'
import { expand_message_xmd } from '@noble/curves/abstract/hash-to-curve.js'
import { numberToBytesBE } from '@noble/curves/utils.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { concatBytes } from '../encoding.js'

/**
 * Independent G1 generators hashed from a public label, by the IETF BBS draft's procedure
 * (draft-irtf-cfrg-bbs-signatures §4.1.1 create_generators, BLS12-381-SHA-256 suite:
 * expand_message_xmd with SHA-256, hash_to_curve BLS12381G1_XMD:SHA-256_SSWU_RO_ of RFC 9380).
 * Nobody knows a discrete-log relation between them: what makes Pedersen commitments over
 * them binding. The same function with the draft's api_id and seeds reproduces the draft's own
 * generators (test/unit/bit-range-proof.test.ts reads them from the shared IETF fixtures).
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
    v = expand_message_xmd(concatBytes([v, numberToBytesBE(i, 8)]), seedDst, EXPAND_LEN, sha256)
    out.push(bls12_381.G1.hashToCurve(v, { DST: generatorDst }).toBytes(true))
  }
  return out
}
