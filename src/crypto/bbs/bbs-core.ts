/**
 * The WebAssembly side of BBS, all through @docknetwork/crypto-wasm-ts: signatures are Dock's BBS
 * (Tessaro–Zhu 2023 with Dock's generators and message encoding), predicates are the library's
 * Bulletproofs++ bound checks (Eagen–Kanjalkar–Ruffing–Nick 2022) inside one composite proof.
 * Synchronous and CPU-heavy: imported by the worker threads (bbs-worker.ts) and by tests, never by
 * request handlers. docs/anonymous-proofs.md gives the recipe an outside verifier follows.
 *
 * The library throws plain strings for bad input (undecodable keys, signatures, scalars) and a
 * WebAssembly.RuntimeError when its Rust code panics; a panic is rethrown everywhere, since the
 * instance it happened in is no longer trustworthy (its shadow stack is not unwound).
 */
import dock from '@docknetwork/crypto-wasm-ts'
import { RANGE_PARAMS_LABEL } from './anonymous-proof-format.js'
import type { BbsMessage } from './bbs-messages.js'

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
  /** Label the Bulletproofs++ setup is hashed from, as the issuer publishes it (default: the deployment's). */
  rangeParamsLabel?: string
}

/** What a verifier needs besides the issuer's public key, params labels and its own nonce. */
export interface DerivedProof {
  /** One composite proof: the BBS proof of knowledge and every bound check. */
  proof: Uint8Array
  messageCount: number
  revealed: RevealedMessage[]
  bounds: BoundPredicate[]
}

export interface ProofCheck extends DerivedProof {
  publicKey: Uint8Array
  paramsLabel: string
  nonce: Uint8Array
  rangeParamsLabel?: string
}

let ready: Promise<void> | undefined
/** Instantiates the WASM module once per thread (each worker has its own instance). */
export function initBbs(): Promise<void> {
  ready ??= initializeWasm()
  return ready
}

export function isWasmPanic(error: unknown): boolean {
  return error instanceof Error && error.name === 'RuntimeError'
}

// Params are public generators hashed from (label, count), independent of the key: built once
// per worker and reused for every issuer key under that label.
const paramsCache = new Map<string, Params>()
function params(label: string, count: number): Params {
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_MESSAGES)
    throw new RangeError(`message count must be 1..${MAX_MESSAGES}: ${count}`)
  const key = `${count}\u0000${label}`
  let found = paramsCache.get(key)
  if (!found) {
    found = BBSSignatureParams.generate(count, utf8(label))
    if (paramsCache.size >= 256) paramsCache.delete(paramsCache.keys().next().value!)
    paramsCache.set(key, found)
  }
  return found
}

// Hashing and decompressing the Bulletproofs++ generators is costly: once per worker and label,
// then shared by reference by every bound of a proof. Few labels exist (one per deployment); the
// bound keeps a stream of odd labels from growing the cache.
const bppCache = new Map<string, BppSetup>()
/** The library's defaults, stated so the published setup cannot change under a library update. */
const BPP_BASE = 2
const BPP_VALUE_BITS = 64
function bpp(label: string): BppSetup {
  let found = bppCache.get(label)
  if (!found) {
    found = SetupParam.bppSetupParamsUncompressed(
      new BoundCheckBppParams(utf8(label), BPP_BASE, BPP_VALUE_BITS).decompress(),
    )
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

/** Dock's BBS signature (`Signature23G1`) on the encoded messages. */
export function sign(secretKey: Uint8Array, paramsLabel: string, messages: BbsMessage[]): Uint8Array {
  if (secretKey.length !== SECRET_KEY_BYTES) throw new RangeError(`BBS secret key must be ${SECRET_KEY_BYTES} bytes`)
  if (messages.length === 0) throw new RangeError('no messages to sign')
  const encoded = wasm(() => messages.map(encode))
  return wasm(
    () =>
      BBSSignature.generate(encoded, new BBSSecretKey(secretKey), params(paramsLabel, messages.length), false).bytes,
  )
}

/** False for any key, signature or message mismatch; RangeError for messages that cannot be encoded. */
export function verify(
  publicKey: Uint8Array,
  paramsLabel: string,
  messages: BbsMessage[],
  signature: Uint8Array,
): boolean {
  return checkSignature(publicKey, params(paramsLabel, messages.length), messages.map(encode), signature)
}

function checkSignature(publicKey: Uint8Array, p: Params, encoded: Uint8Array[], signature: Uint8Array): boolean {
  if (publicKey.length !== PUBLIC_KEY_BYTES || signature.length !== SIGNATURE_BYTES) return false
  return orFalse(() => {
    const pk = new BBSPublicKey(publicKey)
    return pk.isValid() && new BBSSignature(signature).verify(encoded, pk, p, false).verified
  })
}

/**
 * One composite proof: knowledge of a signature on all messages disclosing only `reveal`, and
 * per bound a Bulletproofs++ statement tied to the hidden message by witness equality (the
 * pattern of the library's tests/composite-proofs/bound-check.spec.ts), with the verifier's
 * nonce in the Fiat–Shamir challenge so the proof cannot be replayed to another.
 */
export function deriveProof(req: ProofRequest): DerivedProof {
  const count = req.messages.length
  const reveal = [...new Set(req.reveal)].sort((a, b) => a - b)
  for (const index of reveal) checkIndex(index, count)
  const bounds = req.bounds.map((b) => ({ index: b.index, min: b.min, maxExclusive: b.maxExclusive }))
  for (const bound of bounds) {
    checkBound(bound, count, reveal)
    const message = req.messages[bound.index]!
    if (message.encoding !== 'integer' || typeof message.value !== 'number')
      throw new RangeError(`message ${message.name} is not integer-encoded`)
    if (!(message.value >= bound.min && message.value < bound.maxExclusive))
      throw new RangeError(`message ${message.name} does not satisfy ${bound.min} <= m < ${bound.maxExclusive}`)
  }
  const encoded = wasm(() => req.messages.map(encode))
  const p = params(req.paramsLabel, count)
  // The library proves over a bad signature without complaint, yielding a proof no one accepts: say so here.
  if (!checkSignature(req.publicKey, p, encoded, req.signature))
    throw new RangeError('the signature does not match these messages and key')
  const proof = wasm(() => {
    const revealed = new Map<number, Uint8Array>()
    const hidden = new Map<number, Uint8Array>()
    encoded.forEach((m, i) => (reveal.includes(i) ? revealed : hidden).set(i, m))
    const statements = new Statements(Statement.bbsSignatureProverConstantTime(p, revealed, false))
    const witnesses = new Witnesses(Witness.bbsSignatureConstantTime(new BBSSignature(req.signature), hidden, false))
    for (const bound of bounds) witnesses.add(Witness.boundCheckBpp(encoded[bound.index]!))
    return CompositeProof.generateUsingQuasiProofSpec(
      proofSpec(statements, bounds, req.rangeParamsLabel),
      witnesses,
      req.nonce,
    ).bytes
  })
  return {
    proof,
    messageCount: count,
    revealed: reveal.map((index) => ({ index, message: req.messages[index]! })),
    bounds,
  }
}

/** False for any proof that does not hold for this key, params labels, disclosure, bounds and nonce. */
export function verifyProof(check: ProofCheck): boolean {
  if (check.publicKey.length !== PUBLIC_KEY_BYTES) return false
  return orFalse(() => {
    const reveal = check.revealed.map((r) => r.index)
    if (new Set(reveal).size !== reveal.length) return false
    for (const index of reveal) checkIndex(index, check.messageCount)
    for (const bound of check.bounds) checkBound(bound, check.messageCount, reveal)
    const pk = new BBSPublicKey(check.publicKey)
    if (!pk.isValid()) return false
    const revealed = new Map(check.revealed.map(({ index, message }) => [index, encode(message)]))
    const statements = new Statements(
      Statement.bbsSignatureVerifierConstantTime(params(check.paramsLabel, check.messageCount), pk, revealed, false),
    )
    return new CompositeProof(check.proof).verifyUsingQuasiProofSpec(
      proofSpec(statements, check.bounds, check.rangeParamsLabel),
      check.nonce,
    ).verified
  })
}

/** Statement 0 is the signature; statement k ≥ 1 bounds its witness 0, equal to message bounds[k-1].index of statement 0. */
function proofSpec(
  statements: InstanceType<typeof Statements>,
  bounds: BoundPredicate[],
  rangeLabel = RANGE_PARAMS_LABEL,
) {
  const metas = new MetaStatements()
  for (const bound of bounds) {
    const statement = statements.add(Statement.boundCheckBppFromSetupParamRefs(bound.min, bound.maxExclusive, 0))
    const eq = new WitnessEqualityMetaStatement()
    eq.addWitnessRef(0, bound.index)
    eq.addWitnessRef(statement, 0)
    metas.addWitnessEquality(eq)
  }
  return new QuasiProofSpec(statements, metas, bounds.length ? [bpp(rangeLabel)] : [])
}

function checkIndex(index: number, count: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index >= count)
    throw new RangeError(`message index ${index} is not in 0..${count - 1}`)
}

function checkBound(bound: BoundPredicate, count: number, reveal: number[]): void {
  checkIndex(bound.index, count)
  if (reveal.includes(bound.index))
    throw new RangeError(`message ${bound.index} is revealed: a bound on it proves nothing`)
  if (!isUint(bound.min) || !isUint(bound.maxExclusive) || bound.min >= bound.maxExclusive) {
    throw new RangeError(
      `bound must be safe integers with 0 <= min < maxExclusive: ${bound.min}, ${bound.maxExclusive}`,
    )
  }
}

/** Dock's encoding: integers as themselves (so they can be bounded), text hashed to a scalar. */
function encode(message: BbsMessage): Uint8Array {
  if (message.encoding === 'integer') {
    if (!isUint(message.value)) throw new RangeError(`message ${message.name} is not a non-negative safe integer`)
    return BBSSignature.encodePositiveNumberForSigning(message.value)
  }
  if (message.encoding !== 'text' || typeof message.value !== 'string')
    throw new RangeError(`message ${message.name} is not text`)
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
