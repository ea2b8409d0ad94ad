import { sign } from 'node:crypto'
import { DataIntegrityProof, type DataIntegritySigner } from '@digitalbazaar/data-integrity'
import { createSignCryptosuite, createVerifyCryptosuite } from '@digitalbazaar/eddsa-jcs-2022-cryptosuite'
import { cryptosuite as rdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite'
import type { JwsSigner } from '../../../identity/signing-identities.js'

/** The cryptosuites of W3C VC Data Integrity EdDSA Cryptosuites v1.0 (§3.2 RDFC, §3.3 JCS). */
export const EDDSA_CRYPTOSUITES = ['eddsa-rdfc-2022', 'eddsa-jcs-2022'] as const
export type EddsaCryptosuite = (typeof EDDSA_CRYPTOSUITES)[number]

// eddsa-jcs-2022's library splits signing and verifying (its verify undoes the proof's @context copy).
const SUITES: Record<EddsaCryptosuite, { sign: () => unknown; verify: () => unknown }> = {
  'eddsa-rdfc-2022': { sign: () => rdfc2022, verify: () => rdfc2022 },
  'eddsa-jcs-2022': { sign: createSignCryptosuite, verify: createVerifyCryptosuite },
}

/**
 * The issuer's Ed25519 key as a Data Integrity signer: EdDSA (RFC 8032, pure Ed25519) over the
 * cryptosuite's hash data (VC DI EdDSA §3.2.5 / §3.3.5), signed by node:crypto with the key
 * store's KeyObject; `id` is the verification method the proof names.
 */
export function eddsaSigner(signer: Pick<JwsSigner, 'kid' | 'privateKey'>): DataIntegritySigner {
  return { id: signer.kid, algorithm: 'Ed25519', sign: async ({ data }) => sign(null, data, signer.privateKey) }
}

export function signingSuite(
  cryptosuite: EddsaCryptosuite,
  signer: Pick<JwsSigner, 'kid' | 'privateKey'>,
  created: Date,
): DataIntegrityProof {
  return new DataIntegrityProof({ cryptosuite: SUITES[cryptosuite].sign(), signer: eddsaSigner(signer), date: created })
}

export function verifyingSuite(cryptosuite: EddsaCryptosuite): DataIntegrityProof {
  return new DataIntegrityProof({ cryptosuite: SUITES[cryptosuite].verify() })
}

/** Both EdDSA cryptosuites, for a presentation whose holder chose either. */
export const allVerifyingSuites = (): DataIntegrityProof[] => EDDSA_CRYPTOSUITES.map(verifyingSuite)
