import { base58btc } from 'multiformats/bases/base58'
import { RANGE_PARAMS_LABEL, RANGE_PROOF_PROTOCOL } from './anonymous-proof-format.js'

// multicodec bls12_381-g2-pub (0xeb) as an unsigned varint.
const G2_PREFIX = Uint8Array.of(0xeb, 0x01)
const G2_BYTES = 96

export interface BbsVerificationMethodFields {
  type: 'Multikey'
  publicKeyMultibase: string
  bbsScheme: typeof BBS_SCHEME
  bbsSignatureParamsLabel: string
  /** How predicates over this key's credentials are proven, and the label its generators hash from. */
  bbsRangeProof: { protocol: typeof RANGE_PROOF_PROTOCOL; paramsLabel: string }
}

export const BBS_SCHEME = 'BBS-2023-dock-crypto-wasm'

/**
 * How an issuer's BBS key appears in its DID document: a Multikey (W3C Controlled Identifiers
 * §2.2.2; Bls12381G2Key2020 belongs to the retired BBS+ 2020 suite) holding multicodec
 * bls12_381-g2-pub and the 96-byte compressed G2 point, as did:key encodes BLS keys ("zUC7…").
 * Beside it, what a verifier needs to rebuild the signature params: the label (its UTF-8 bytes
 * go to Dock's `BBSSignatureParams.generate(messageCount, label)`) and the scheme, Dock's BBS
 * (Tessaro–Zhu 2023 with Dock's generators and encoding), which is not the IETF ciphersuite.
 * `bbsRangeProof` names the range-proof protocol of derived proofs (the library's Bulletproofs++,
 * a transparent setup whose generators hash from the label), so a verifier needs nothing but
 * this document and the library.
 */
export function bbsVerificationMethodFields(publicKey: Uint8Array, paramsLabel: string): BbsVerificationMethodFields {
  if (publicKey.length !== G2_BYTES)
    throw new RangeError(`a BBS public key is ${G2_BYTES} bytes, not ${publicKey.length}`)
  const prefixed = new Uint8Array(G2_PREFIX.length + publicKey.length)
  prefixed.set(G2_PREFIX)
  prefixed.set(publicKey, G2_PREFIX.length)
  return {
    type: 'Multikey',
    publicKeyMultibase: base58btc.encode(prefixed),
    bbsScheme: BBS_SCHEME,
    bbsSignatureParamsLabel: paramsLabel,
    bbsRangeProof: { protocol: RANGE_PROOF_PROTOCOL, paramsLabel: RANGE_PARAMS_LABEL },
  }
}

/**
 * The raw public key and params label of such a method; undefined when it is not one.
 * `rangeParamsLabel` is undefined when the method publishes no label for RANGE_PROOF_PROTOCOL.
 */
export function decodeBbsVerificationMethod(
  method: Record<string, unknown>,
): { publicKey: Uint8Array; paramsLabel: string; rangeParamsLabel?: string } | undefined {
  if (
    method.type !== 'Multikey' ||
    method.bbsScheme !== BBS_SCHEME ||
    typeof method.publicKeyMultibase !== 'string' ||
    typeof method.bbsSignatureParamsLabel !== 'string'
  )
    return undefined
  try {
    const bytes = base58btc.decode(method.publicKeyMultibase)
    if (bytes.length !== G2_PREFIX.length + G2_BYTES || bytes[0] !== G2_PREFIX[0] || bytes[1] !== G2_PREFIX[1])
      return undefined
    const range = method.bbsRangeProof as { protocol?: unknown; paramsLabel?: unknown } | undefined
    const rangeParamsLabel =
      range && range.protocol === RANGE_PROOF_PROTOCOL && typeof range.paramsLabel === 'string'
        ? range.paramsLabel
        : undefined
    return {
      publicKey: bytes.slice(G2_PREFIX.length),
      paramsLabel: method.bbsSignatureParamsLabel,
      ...(rangeParamsLabel === undefined ? {} : { rangeParamsLabel }),
    }
  } catch {
    return undefined
  }
}
