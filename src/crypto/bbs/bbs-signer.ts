/**
 * BBS signing (Tessaro–Zhu 2023, the library's `Signature23G1`) with fixed-base tables.
 *
 * The library signs in WebAssembly but takes the signature params as bytes on every call and
 * decompresses and subgroup-checks each generator again (about 0.6 ms per generator, over half
 * of a 13-message signature). Signing is only
 *   A = (g1 + Σ h_i·m_i) · 1/(sk + e)  =  g1·s + Σ h_i·(m_i·s)   with s = 1/(sk + e),
 * a sum of multiples of the issuer's fixed generators, so this file decodes the generators once
 * per params label, attaches wNAF tables to them (@noble/curves `precompute`), and computes A
 * with constant-time fixed-base multiplications only (the scalars depend on the secret key).
 * The output is byte-for-byte the library's format (A compressed, then e little-endian), and the
 * library verifies it and derives proofs from it: test/unit/bbs-signer.test.ts checks that on
 * random messages and counts.
 *
 * Runs in the BBS worker threads (bbs-worker.ts), like the rest of the BBS code.
 */
import { bls12_381 } from '@noble/curves/bls12-381.js'
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js'

type G1Point = InstanceType<typeof bls12_381.G1.Point>
const G1 = bls12_381.G1.Point
const Fr = bls12_381.fields.Fr

/**
 * wNAF window of the tables: 2^(W−1) points per window. Measured on this machine (13 messages):
 * 8 signs in ~8–9 ms against the library's ~16 ms, with ~11 MB of tables per issuer and ~1–2 s
 * to build them on a worker's first signature for that issuer; 6 takes half the memory but
 * signs no faster than the library under load.
 */
const WINDOW = 8
/** Issuers whose tables a worker keeps (LRU, ~45 MB at most); one evicted is rebuilt on its next signature. */
const MAX_LABELS = 4
/**
 * Tables pay for themselves after a few hundred milliseconds of signing: an issuer's first
 * signatures on a worker go to the library (`sign` answers undefined) and the tables are built
 * on this one, so an issuer that signs once in a while never holds a worker for seconds.
 */
const SIGNATURES_BEFORE_TABLES = 4

export interface SignatureParamsSource {
  /** g1 and the h_i as the library's compressed G1 bytes, for `count` messages. */
  generators(label: string, count: number): { g1: Uint8Array; h: Uint8Array[] }
}

interface Tables {
  g1: G1Point
  h: G1Point[]
}

export class PrecomputedBbsSigner {
  private readonly tables = new Map<string, Tables>()
  private readonly uses = new Map<string, number>()

  constructor(private readonly source: SignatureParamsSource) {}

  /**
   * `secretKey` and each encoded message are scalars in the library's little-endian form (what
   * `BBSSecretKey.bytes` and the `encode…ForSigning` functions return). Undefined while this
   * label has not yet signed often enough to earn its tables: the caller signs with the library.
   */
  sign(secretKey: Uint8Array, label: string, encodedMessages: Uint8Array[]): Uint8Array | undefined {
    const sk = scalar(secretKey)
    if (sk === 0n) throw new RangeError('BBS secret key is zero')
    encodedMessages.forEach(scalar)
    if (!this.tables.has(label)) {
      const used = (this.uses.get(label) ?? 0) + 1
      if (used < SIGNATURES_BEFORE_TABLES) {
        if (!this.uses.has(label) && this.uses.size >= 1024) this.uses.delete(this.uses.keys().next().value!)
        this.uses.set(label, used)
        return undefined
      }
      this.uses.delete(label)
    }
    const { g1, h } = this.tablesFor(label, encodedMessages.length)
    let e: bigint
    do e = Fr.create(bytesToNumberLE(crypto.getRandomValues(new Uint8Array(48))))
    while (e === 0n || Fr.add(e, sk) === 0n)
    const s = Fr.inv(Fr.add(e, sk))
    let a = g1.multiply(s)
    encodedMessages.forEach((m, i) => {
      const k = Fr.mul(scalar(m), s)
      // multiply() refuses 0; a zero term adds nothing.
      if (k !== 0n) a = a.add(h[i]!.multiply(k))
    })
    const out = new Uint8Array(80)
    out.set(a.toBytes(true), 0)
    out.set(numberToBytesLE(e, 32), 48)
    return out
  }

  private tablesFor(label: string, count: number): Tables {
    let found = this.tables.get(label)
    if (found) {
      // Most recently used last.
      this.tables.delete(label)
      this.tables.set(label, found)
    }
    if (!found || found.h.length < count) {
      // Generators depend on (label, index) only, so a longer set extends a shorter one.
      const { g1, h } = this.source.generators(label, Math.max(count, found?.h.length ?? 0))
      const point = (bytes: Uint8Array) => G1.fromBytes(new Uint8Array(bytes)).precompute(WINDOW, false)
      found = { g1: found?.g1 ?? point(g1), h: [...(found?.h ?? []), ...h.slice(found?.h.length ?? 0).map(point)] }
      this.tables.delete(label)
      if (this.tables.size >= MAX_LABELS) this.tables.delete(this.tables.keys().next().value!)
      this.tables.set(label, found)
    }
    return found
  }
}

/** A canonical scalar from 32 little-endian bytes; anything else is refused, never reduced. */
function scalar(bytes: Uint8Array): bigint {
  if (bytes.length !== 32) throw new RangeError('a BBS scalar is 32 bytes')
  const value = bytesToNumberLE(bytes)
  if (value >= Fr.ORDER) throw new RangeError('a BBS scalar is not reduced')
  return value
}
