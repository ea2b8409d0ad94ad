/**
 * The WebAssembly side of BBS (@docknetwork/crypto-wasm-ts: BBS per Tessaro–Zhu 2023 with Dock's
 * message encoding; range proofs by bit decomposition over Pedersen commitments, bit-range-proof.ts,
 * or, for proofs made before it, the library's Bulletproofs++). Synchronous and CPU-heavy:
 * imported by the worker threads (bbs-worker.ts) and by tests, never by request handlers.
 *
 * The library throws plain strings for bad input (undecodable keys, signatures, scalars) and a
 * WebAssembly.RuntimeError when its Rust code panics; a panic is rethrown everywhere, since the
 * instance it happened in is no longer trustworthy (its shadow stack is not unwound).
 */
import dock from '@docknetwork/crypto-wasm-ts'
import { BPP_PARAMS_LABEL, LEGACY_RANGE_PROOF_PROTOCOL, RANGE_PARAMS_LABEL, RANGE_PROOF_PROTOCOL, type RangeProofProtocol } from './anonymous-proof-format.js'
import type { BbsMessage } from './bbs-messages.js'
import { checkBbsSignature, type SignatureParamsBytes } from './bbs-signature-check.js'
import { PrecomputedBbsSigner } from './bbs-signer.js'
import { proveRange, rangeGenerators, verifyRange } from './bit-range-proof.js'
import { initMcl } from './mcl-curve.js'

const {
  initializeWasm,
  BBSSignatureParams,
  BBSSecretKey,
  BBSPublicKey,
  BBSSignature,
  BoundCheckBppParams,
  CompositeProof,
  MetaStatements,
  QuasiProofSpec,
  SetupParam,
  Statement,
  Statements,
  Witness,
  WitnessEqualityMetaStatement,
  Witnesses,
} = dock

type Params = InstanceType<typeof BBSSignatureParams>
type BppSetup = ReturnType<typeof SetupParam.bppSetupParamsUncompressed>

/** Labels of the range-proof generators: transparent setups, anyone derives the same ones. */
export { BPP_PARAMS_LABEL, RANGE_PARAMS_LABEL }
/** Schemas hold at most 100 attributes, plus 9 meta slots; caps the params a proof can ask for. */
export const MAX_MESSAGES = 256
const SECRET_KEY_BYTES = 32
const PUBLIC_KEY_BYTES = 96
const SIGNATURE_BYTES = 80

export interface BbsKeyPair {
  publicKey: Uint8Array
  secretKey: Uint8Array
}

/** `min <= message < maxExclusive` on the hidden, integer-encoded message at `index`. */
export interface BoundPredicate {
  index: number
  min: number
  maxExclusive: number
}

export interface RevealedMessage {
  index: number
  message: BbsMessage
}

export interface ProofRequest {
  publicKey: Uint8Array
  paramsLabel: string
  messages: BbsMessage[]
  signature: Uint8Array
  /** Indexes of the messages to disclose. */
  reveal: number[]
  bounds: BoundPredicate[]
  /** The verifier's nonce: the proof verifies under this nonce only. */
  nonce: Uint8Array
  /** How bounds are proven (default: the bit decomposition); only read when there are bounds. */
  rangeProtocol?: RangeProofProtocol
  /** Label of the range proof's generators (default: the protocol's deployment label). */
  rangeParamsLabel?: string
}

/** What a verifier needs besides the issuer's public key, params label and its own nonce. */
export interface DerivedProof {
  proof: Uint8Array
  messageCount: number
  revealed: RevealedMessage[]
  bounds: BoundPredicate[]
  /** One per bound, in order, for the bit decomposition; none for Bulletproofs++ (inside `proof`). */
  rangeProofs: Uint8Array[]
}

export interface ProofCheck extends DerivedProof {
  publicKey: Uint8Array
  paramsLabel: string
  nonce: Uint8Array
  rangeProtocol?: RangeProofProtocol
  rangeParamsLabel?: string
}

let ready: Promise<void> | undefined
/** Instantiates the WASM module once per thread (each worker has its own instance). */
export function initBbs(): Promise<void> {
  ready ??= Promise.all([initializeWasm(), initMcl()]).then(() => undefined)
  return ready
}

export function isWasmPanic(error: unknown): boolean {
  return error instanceof Error && error.name === 'RuntimeError'
}

// Params are public generators hashed from (label, count): built once per worker and reused.
const paramsCache = new Map<string, Params>()
function params(label: string, count: number): Params {
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_MESSAGES) throw new RangeError(`message count must be 1..${MAX_MESSAGES}: ${count}`)
  const key = `${count}\u0000${label}`
  let found = paramsCache.get(key)
  if (!found) {
    found = BBSSignatureParams.generate(count, utf8(label))
    if (paramsCache.size >= 256) paramsCache.delete(paramsCache.keys().next().value!)
    paramsCache.set(key, found)
  }
  return found
}

// Decompressing the generators costs ~0.25 s: once per worker and label, then passed by
// reference. Few labels exist (one per deployment); the bound keeps a stream of odd labels from
// growing the cache.
const bppCache = new Map<string, BppSetup>()
function bpp(label: string): BppSetup {
  let found = bppCache.get(label)
  if (!found) {
    found = SetupParam.bppSetupParamsUncompressed(new BoundCheckBppParams(utf8(label)).decompress())
    if (bppCache.size >= 4) bppCache.delete(bppCache.keys().next().value!)
    bppCache.set(label, found)
  }
  return found
}

/**
 * The public key is g2^sk with g2 from the params; Dock derives g1, g2 and each h_i from the
 * label independently of the count, so count 1 gives the same key as any other.
 */
export function generateKeyPair(paramsLabel: string): BbsKeyPair {
  const sk = BBSSecretKey.generate()
  const pk = sk.generatePublicKey(params(paramsLabel, 1))
  return { publicKey: pk.bytes, secretKey: sk.bytes }
}

// The generators come from the same params the library verifies and proves with.
const signer = new PrecomputedBbsSigner({
  generators: (label, count) => {
    const { g1, h } = params(label, count).value as { g1: Uint8Array; h: Uint8Array[] }
    return { g1, h }
  },
})

/** A signature the library verifies; computed with fixed-base tables (bbs-signer.ts) once the issuer signs often, else by the library. */
export function sign(secretKey: Uint8Array, paramsLabel: string, messages: BbsMessage[]): Uint8Array {
  if (secretKey.length !== SECRET_KEY_BYTES) throw new RangeError(`BBS secret key must be ${SECRET_KEY_BYTES} bytes`)
  if (messages.length === 0) throw new RangeError('no messages to sign')
  const encoded = wasm(() => messages.map(encode))
  return signer.sign(secretKey, paramsLabel, encoded) ?? wasm(() => BBSSignature.generate(encoded, new BBSSecretKey(secretKey), params(paramsLabel, messages.length), false).bytes)
}

/** The library's own signing, kept for the tests that check both agree with its verification. */
export function signInWasm(secretKey: Uint8Array, paramsLabel: string, messages: BbsMessage[]): Uint8Array {
  if (secretKey.length !== SECRET_KEY_BYTES) throw new RangeError(`BBS secret key must be ${SECRET_KEY_BYTES} bytes`)
  const encoded = messages.map(encode)
  return wasm(() => BBSSignature.generate(encoded, new BBSSecretKey(secretKey), params(paramsLabel, messages.length), false).bytes)
}

/** False for any key, signature or message mismatch; RangeError for messages that cannot be encoded. */
export function verify(publicKey: Uint8Array, paramsLabel: string, messages: BbsMessage[], signature: Uint8Array): boolean {
  const encoded = messages.map(encode)
  if (publicKey.length !== PUBLIC_KEY_BYTES || signature.length !== SIGNATURE_BYTES) return false
  return orFalse(() => {
    const pk = new BBSPublicKey(publicKey)
    return pk.isValid() && new BBSSignature(signature).verify(encoded, pk, params(paramsLabel, messages.length), false).verified
  })
}

/**
 * A composite proof: knowledge of a signature on all messages disclosing only `reveal`, with the
 * verifier's nonce in the Fiat–Shamir challenge so the proof cannot be replayed to another, plus
 * per predicate either (default) a Pedersen commitment to the hidden message, tied to it by a
 * witness-equality meta statement and shown in range by a bit-decomposition proof bound to the
 * same nonce (bit-range-proof.ts), or a Bulletproofs++ bound check inside the composite proof
 * (the pattern of the library's tests/composite-proofs/bound-check.spec.ts).
 */
export function deriveProof(req: ProofRequest): DerivedProof {
  const count = req.messages.length
  const reveal = [...new Set(req.reveal)].sort((a, b) => a - b)
  for (const index of reveal) checkIndex(index, count)
  const bounds = req.bounds.map((b) => ({ index: b.index, min: b.min, maxExclusive: b.maxExclusive }))
  for (const bound of bounds) {
    checkBound(bound, count, reveal)
    const message = req.messages[bound.index]!
    if (message.encoding !== 'integer' || typeof message.value !== 'number') throw new RangeError(`message ${message.name} is not integer-encoded`)
    if (!(message.value >= bound.min && message.value < bound.maxExclusive)) throw new RangeError(`message ${message.name} does not satisfy ${bound.min} <= m < ${bound.maxExclusive}`)
  }
  const range = rangeSetup(req)
  const encoded = req.messages.map(encode)
  const p = params(req.paramsLabel, count)
  let rangeProofs: Uint8Array[] = []
  // Proving over a bad signature would yield a proof no one accepts: say so here instead.
  if (!checkBbsSignature(req.paramsLabel, () => p.value as SignatureParamsBytes, req.publicKey, encoded, req.signature)) throw new RangeError('the signature does not match these messages and key')
  const proof = wasm(() => {
    const signature = new BBSSignature(req.signature)
    const revealed = new Map<number, Uint8Array>()
    const hidden = new Map<number, Uint8Array>()
    encoded.forEach((m, i) => (reveal.includes(i) ? revealed : hidden).set(i, m))
    const statements = new Statements(Statement.bbsSignatureProverConstantTime(p, revealed, false))
    const witnesses = new Witnesses(Witness.bbsSignatureConstantTime(signature, hidden, false))
    if (range.protocol === LEGACY_RANGE_PROOF_PROTOCOL) {
      for (const bound of bounds) witnesses.add(Witness.boundCheckBpp(encoded[bound.index]!))
      return CompositeProof.generateUsingQuasiProofSpec(bppProofSpec(statements, bounds, range.label), witnesses, req.nonce).bytes
    }
    const ranges = bounds.map((bound) => proveRange({ label: range.label, min: BigInt(bound.min), maxExclusive: BigInt(bound.maxExclusive), context: req.nonce }, BigInt(req.messages[bound.index]!.value)))
    ranges.forEach((r, k) => witnesses.add(Witness.pedersenCommitment([encoded[bounds[k]!.index]!, r.blinding])))
    rangeProofs = ranges.map((r) => r.proof)
    return CompositeProof.generateUsingQuasiProofSpec(committedProofSpec(statements, bounds, range.label, ranges.map((r) => r.commitment)), witnesses, req.nonce).bytes
  })
  return { proof, messageCount: count, revealed: reveal.map((index) => ({ index, message: req.messages[index]! })), bounds, rangeProofs }
}

/** False for any proof that does not hold for this key, params label, disclosure, bounds and nonce. */
export function verifyProof(check: ProofCheck): boolean {
  if (check.publicKey.length !== PUBLIC_KEY_BYTES) return false
  return orFalse(() => {
    const reveal = check.revealed.map((r) => r.index)
    if (new Set(reveal).size !== reveal.length) return false
    for (const index of reveal) checkIndex(index, check.messageCount)
    for (const bound of check.bounds) checkBound(bound, check.messageCount, reveal)
    const range = rangeSetup(check)
    let commitments: Uint8Array[] = []
    if (range.protocol === RANGE_PROOF_PROTOCOL) {
      if (check.rangeProofs.length !== check.bounds.length) return false
      const verified = check.bounds.map((bound, k) => verifyRange({ label: range.label, min: BigInt(bound.min), maxExclusive: BigInt(bound.maxExclusive), context: check.nonce }, check.rangeProofs[k]!))
      if (verified.some((c) => c === undefined)) return false
      commitments = verified as Uint8Array[]
    }
    const pk = new BBSPublicKey(check.publicKey)
    if (!pk.isValid()) return false
    const revealed = new Map(check.revealed.map(({ index, message }) => [index, encode(message)]))
    const statements = new Statements(Statement.bbsSignatureVerifierConstantTime(params(check.paramsLabel, check.messageCount), pk, revealed, false))
    const spec = range.protocol === LEGACY_RANGE_PROOF_PROTOCOL ? bppProofSpec(statements, check.bounds, range.label) : committedProofSpec(statements, check.bounds, range.label, commitments)
    return new CompositeProof(check.proof).verifyUsingQuasiProofSpec(spec, check.nonce).verified
  })
}

function rangeSetup(req: { rangeProtocol?: RangeProofProtocol; rangeParamsLabel?: string }): { protocol: RangeProofProtocol; label: string } {
  const protocol = req.rangeProtocol ?? RANGE_PROOF_PROTOCOL
  return { protocol, label: req.rangeParamsLabel ?? (protocol === LEGACY_RANGE_PROOF_PROTOCOL ? BPP_PARAMS_LABEL : RANGE_PARAMS_LABEL) }
}

/** Statement 0 is the signature; statement k ≥ 1 commits, over the label's G and H, to message bounds[k-1].index of statement 0. */
function committedProofSpec(statements: InstanceType<typeof Statements>, bounds: BoundPredicate[], label: string, commitments: Uint8Array[]) {
  const metas = new MetaStatements()
  const key = bounds.length ? rangeGenerators(label).bytes : []
  bounds.forEach((bound, k) => equal(metas, bound.index, statements.add(Statement.pedersenCommitmentG1([...key], commitments[k]!))))
  return new QuasiProofSpec(statements, metas, [])
}

/** Statement 0 is the signature; statement k ≥ 1 bounds witness 0 of itself to message bounds[k-1].index of statement 0. */
function bppProofSpec(statements: InstanceType<typeof Statements>, bounds: BoundPredicate[], label: string) {
  const metas = new MetaStatements()
  for (const bound of bounds) equal(metas, bound.index, statements.add(Statement.boundCheckBppFromSetupParamRefs(bound.min, bound.maxExclusive, 0)))
  return new QuasiProofSpec(statements, metas, bounds.length ? [bpp(label)] : [])
}

/** Witness `index` of the signature (statement 0) equals witness 0 of `statement`. */
function equal(metas: InstanceType<typeof MetaStatements>, index: number, statement: number): void {
  const eq = new WitnessEqualityMetaStatement()
  eq.addWitnessRef(0, index)
  eq.addWitnessRef(statement, 0)
  metas.addWitnessEquality(eq)
}

function checkIndex(index: number, count: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index >= count) throw new RangeError(`message index ${index} is not in 0..${count - 1}`)
}

function checkBound(bound: BoundPredicate, count: number, reveal: number[]): void {
  checkIndex(bound.index, count)
  if (reveal.includes(bound.index)) throw new RangeError(`message ${bound.index} is revealed: a bound on it proves nothing`)
  if (!isUint(bound.min) || !isUint(bound.maxExclusive) || bound.min >= bound.maxExclusive) {
    throw new RangeError(`bound must be safe integers with 0 <= min < maxExclusive: ${bound.min}, ${bound.maxExclusive}`)
  }
}

function encode(message: BbsMessage): Uint8Array {
  if (message.encoding === 'integer') {
    if (!isUint(message.value)) throw new RangeError(`message ${message.name} is not a non-negative safe integer`)
    return BBSSignature.encodePositiveNumberForSigning(message.value)
  }
  if (message.encoding !== 'text' || typeof message.value !== 'string') throw new RangeError(`message ${message.name} is not text`)
  return BBSSignature.encodeMessageForSigningConstantTime(utf8(message.value))
}

/** Runs library code, turning its thrown strings into Errors. */
function wasm<T>(run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (error instanceof Error) throw error
    throw new Error(`BBS: ${String(error)}`, { cause: error })
  }
}

function orFalse(run: () => boolean): boolean {
  try {
    return run()
  } catch (error) {
    if (isWasmPanic(error)) throw error
    return false
  }
}

const isUint = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)
