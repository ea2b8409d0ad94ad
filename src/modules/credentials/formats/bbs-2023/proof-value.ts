import { isObject } from '../jwt-checks.js'

export const BBS_2023 = 'bbs-2023'

/** The bbs-2023 proof of a document: a DataIntegrityProof naming the cryptosuite (VC Data Integrity §2.1). */
export function bbs2023Proof(document: Record<string, unknown>): Record<string, unknown> | undefined {
  const proofs = Array.isArray(document.proof) ? document.proof : [document.proof]
  return proofs.find(
    (p): p is Record<string, unknown> => isObject(p) && p.type === 'DataIntegrityProof' && p.cryptosuite === BBS_2023,
  )
}

/**
 * Whether a bbs-2023 proof value is a base proof (what the issuer gives the holder) or a derived
 * one (what a verifier is shown), by its CBOR tag: 0xd9 0x5d 0x02 base, 0xd9 0x5d 0x03 derived
 * (bbs-2023 §3.3.2 serializeBaseProofValue, §3.3.5 serializeDerivedProofValue), multibase base64url.
 */
export function proofMode(proof: Record<string, unknown>): 'base' | 'derived' | undefined {
  const value = proof.proofValue
  if (typeof value !== 'string' || !value.startsWith('u')) return undefined
  const head = Buffer.from(value.slice(1, 5), 'base64url')
  if (head[0] !== 0xd9 || head[1] !== 0x5d) return undefined
  return head[2] === 0x02 ? 'base' : head[2] === 0x03 ? 'derived' : undefined
}
