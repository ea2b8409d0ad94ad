import mcl from 'mcl-wasm'
import { bls12_381 } from '@noble/curves/bls12-381.js'
import { bytesToNumberLE } from '@noble/curves/utils.js'
import { fr, type G1, type G2, type Scalar } from './mcl-curve.js'

/**
 * Checks a BBS signature (Tessaro–Zhu 2023, the library's `Signature23G1`: A compressed in G1,
 * then e as 32 bytes little-endian) with mcl's pairing:
 *   e(A, pk + e·g2) = e(g1 + Σ h_i·m_i, g2).
 * The library's own check decompresses and subgroup-checks every generator on every call
 * (~24 ms for 13 messages here); this decodes them once per params label and worker (~5 ms a
 * check). Used before deriving a proof, so a credential whose stored signature does not match
 * is refused instead of proven; the library's verification stays the reference everywhere
 * else, and test/unit/bbs-signature-check.test.ts holds the two to the same answers.
 *
 * Needs initMcl() first; the worker's initBbs does it.
 */

export interface SignatureParamsBytes {
  /** g1, g2 and h_1..h_n as the library's compressed bytes (its params' `value`). */
  g1: Uint8Array
  g2: Uint8Array
  h: Uint8Array[]
}

interface Decoded {
  g1: G1
  g2: G2
  h: G1[]
}

const MAX_LABELS = 16
const decodedByLabel = new Map<string, Decoded>()

/**
 * True when `signature` is a valid signature under `publicKey` on `encodedMessages` (the
 * library's scalars, little-endian) with the generators of `label`; false for anything else,
 * malformed bytes included. `params` supplies the generators when this label (or this many of
 * its generators) is not decoded yet: they depend on (label, index) only.
 */
export function checkBbsSignature(label: string, params: () => SignatureParamsBytes, publicKey: Uint8Array, encodedMessages: Uint8Array[], signature: Uint8Array): boolean {
  if (signature.length !== 80 || publicKey.length !== 96) return false
  const generators = decoded(label, encodedMessages.length, params)
  const a = g1Point(signature.subarray(0, 48))
  const e = scalar(signature.subarray(48))
  const pk = g2Point(publicKey)
  const messages = encodedMessages.map(scalar)
  if (!a || !e || !pk || messages.some((m) => m === undefined)) return false
  const b = messages.length ? mcl.add(generators.g1, mcl.mulVec(generators.h.slice(0, messages.length), messages as Scalar[])) : generators.g1
  return mcl.pairing(a, mcl.add(pk, mcl.mul(generators.g2, e))).isEqual(mcl.pairing(b, generators.g2))
}

function decoded(label: string, count: number, params: () => SignatureParamsBytes): Decoded {
  let found = decodedByLabel.get(label)
  if (!found || found.h.length < count) {
    const bytes = params()
    const points = bytes.h.map(g1Point)
    const g1 = g1Point(bytes.g1)
    const g2 = g2Point(bytes.g2)
    if (!g1 || !g2 || points.some((p) => !p) || points.length < count) throw new RangeError(`the params of ${label} do not decode`)
    found = { g1, g2, h: points as G1[] }
    decodedByLabel.delete(label)
    if (decodedByLabel.size >= MAX_LABELS) decodedByLabel.delete(decodedByLabel.keys().next().value!)
  } else {
    decodedByLabel.delete(label)
  }
  decodedByLabel.set(label, found)
  return found
}

/**
 * A prime-order, non-identity point, or undefined. The order is checked here for both groups:
 * mcl decodes G1 without it in this thread (mcl-curve.ts).
 */
function decodePoint<T extends G1 | G2>(empty: T, bytes: Uint8Array): T | undefined {
  try {
    empty.deserialize(bytes)
  } catch {
    return undefined
  }
  return !empty.isZero() && empty.isValidOrder() ? empty : undefined
}
const g1Point = (bytes: Uint8Array) => decodePoint(new mcl.G1(), bytes)
const g2Point = (bytes: Uint8Array) => decodePoint(new mcl.G2(), bytes)

/** A canonical scalar from 32 little-endian bytes (as the library writes them); undefined when not below r. */
function scalar(bytes: Uint8Array): Scalar | undefined {
  if (bytes.length !== 32) return undefined
  const value = bytesToNumberLE(bytes)
  return value < ORDER ? fr(value) : undefined
}

const ORDER = bls12_381.fields.Fr.ORDER
