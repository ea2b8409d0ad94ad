// Verifies credential-service anonymous proofs with @docknetwork/crypto-wasm-ts and Node's builtins
// only, following docs/anonymous-proofs.md ("Verifying with the library alone"): nothing of the
// service's code is imported. Usage: node verify-anonymous-proof.mjs <check.json>..., each file
// { proof, verification_method, nonce, verifier_did } (the method as the issuer's DID document
// serves it; the nonce and DID are the verifier's own). Prints verified=true|false per file.
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { Buffer } from 'node:buffer'
import process from 'node:process'
import { TextEncoder } from 'node:util'
import dock from '@docknetwork/crypto-wasm-ts'

const {
  initializeWasm,
  BBSSignatureParams,
  BBSPublicKey,
  BBSSignature,
  BoundCheckBppParams,
  CompositeProof,
  MetaStatements,
  QuasiProofSpec,
  SetupParam,
  Statement,
  Statements,
  WitnessEqualityMetaStatement,
} = dock

const FORMAT = 'credential-service/anonymous-proof/v1'
const SCHEME = 'BBS-2023-dock-crypto-wasm'
const META = ['@id', '@type', '@issuer', '@subject', '@schema', '@issued_at', '@expires_at', '@status', '@layout']
const ABSENT = '\u0000absent'
const utf8 = (text) => new TextEncoder().encode(text)

// RFC 8785 (JCS) for JSON values whose numbers JSON.stringify already writes canonically.
function jcs(value) {
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${jcs(value[k])}`)
      .join(',')}}`
  return JSON.stringify(value)
}

function base58btc(text) {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
  if (text[0] !== 'z') throw new Error('not base58btc multibase')
  let n = 0n
  for (const c of text.slice(1)) {
    const digit = alphabet.indexOf(c)
    if (digit < 0) throw new Error('not base58btc')
    n = n * 58n + BigInt(digit)
  }
  const bytes = []
  for (; n > 0n; n >>= 8n) bytes.unshift(Number(n & 255n))
  const zeros = text.slice(1).match(/^1*/)[0].length
  return Uint8Array.from([...new Array(zeros).fill(0), ...bytes])
}

const text = (value) => BBSSignature.encodeMessageForSigningConstantTime(utf8(value))
const integer = (value) => BBSSignature.encodePositiveNumberForSigning(value)

/** An attribute value as the issuer signed it, by its data type. */
function attribute(type, value) {
  if (value === null) return text(ABSENT)
  switch (type) {
    case 'number':
      return integer(Math.round(value * 10_000) + 2 ** 49)
    case 'date':
      return integer(Date.parse(`${value}T00:00:00Z`) / 86_400_000 + 719_162)
    case 'boolean':
      return text(value ? 'true' : 'false')
    case 'object':
    case 'array':
      return text(jcs(value))
    default:
      return text(value)
  }
}

function verify({ proof, verification_method: method, nonce, verifier_did: verifierDid }) {
  if (proof.format !== FORMAT || method.bbsScheme !== SCHEME || proof.params_label !== method.bbsSignatureParamsLabel)
    return false
  if (proof.message_count !== META.length + proof.attributes.length) return false
  const key = base58btc(method.publicKeyMultibase)
  if (key.length !== 98 || key[0] !== 0xeb || key[1] !== 0x01) return false
  const publicKey = new BBSPublicKey(key.slice(2))

  // Disclosed messages by index: the meta slots every proof discloses, then the revealed attributes.
  const revealed = new Map()
  const at = (name) => META.indexOf(name)
  revealed.set(at('@id'), text(proof.credential_id))
  revealed.set(at('@type'), text(proof.credential_type))
  revealed.set(at('@issuer'), text(proof.issuer))
  revealed.set(at('@subject'), text(proof.subject))
  revealed.set(at('@schema'), text(proof.schema_id))
  revealed.set(
    at('@expires_at'),
    proof.expires_at === null ? text(ABSENT) : integer(Math.floor(Date.parse(proof.expires_at) / 1000)),
  )
  revealed.set(at('@status'), text(proof.credential_status.id))
  revealed.set(at('@layout'), text(createHash('sha256').update(jcs(proof.attributes)).digest('base64url')))
  const position = new Map(proof.attributes.map(([name, type], i) => [name, { index: META.length + i, type }]))
  for (const [name, value] of Object.entries(proof.revealed)) {
    const slot = position.get(name)
    if (!slot) return false
    revealed.set(slot.index, attribute(slot.type, value))
  }

  // Statement 0: the BBS signature; statement k: bounds[k-1] on its message, by witness equality.
  const params = BBSSignatureParams.generate(proof.message_count, utf8(method.bbsSignatureParamsLabel))
  const statements = new Statements(Statement.bbsSignatureVerifierConstantTime(params, publicKey, revealed, false))
  const metas = new MetaStatements()
  const setup = []
  if (proof.bounds.length) {
    const range = method.bbsRangeProof
    if (
      range?.protocol !== 'Bulletproofs++' ||
      proof.range_proof?.protocol !== range.protocol ||
      proof.range_proof.params_label !== range.paramsLabel
    )
      return false
    setup.push(
      SetupParam.bppSetupParamsUncompressed(new BoundCheckBppParams(utf8(range.paramsLabel), 2, 64).decompress()),
    )
  }
  for (const bound of proof.bounds) {
    const slot = position.get(bound.attribute)
    if (!slot) return false
    const k = statements.add(Statement.boundCheckBppFromSetupParamRefs(bound.min, bound.max_exclusive, 0))
    const equal = new WitnessEqualityMetaStatement()
    equal.addWitnessRef(0, slot.index)
    equal.addWitnessRef(k, 0)
    metas.addWitnessEquality(equal)
  }
  const challengeNonce = utf8(jcs([FORMAT, verifierDid, nonce]))
  return new CompositeProof(Buffer.from(proof.proof_value, 'base64url')).verifyUsingQuasiProofSpec(
    new QuasiProofSpec(statements, metas, setup),
    challengeNonce,
  ).verified
}

await initializeWasm()
for (const file of process.argv.slice(2)) {
  let verified
  try {
    verified = verify(JSON.parse(await readFile(file, 'utf8')))
  } catch (error) {
    process.stderr.write(`${file}: ${error instanceof Error ? error.message : String(error)}\n`)
    verified = false
  }
  process.stdout.write(`verified=${verified}\n`)
}
