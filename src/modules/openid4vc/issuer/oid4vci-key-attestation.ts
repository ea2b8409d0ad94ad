import { oid4vciError } from './oid4vci-errors.js'
import type { Oid4vciPolicy } from './oid4vci-policy.js'

/**
 * OID4VCI 1.0 Appendix D: what is left after the library verified a jwt proof's `key_attestation`
 * (signed by a trusted wallet provider, not expired, the proof key among its `attested_keys`):
 * it is required when the issuer's policy says, and a nonce it carries is the proof's c_nonce (D.1).
 */
export function checkKeyAttestation(
  policy: Oid4vciPolicy,
  attestation: { payload: { nonce?: string } } | undefined,
  cNonce: string,
): void {
  if (!attestation) {
    if (policy.key_attestation_required)
      throw oid4vciError(
        'invalid_proof',
        'This issuer requires a key_attestation in the key proof header (OID4VCI 1.0 Appendix D)',
      )
    return
  }
  if (attestation.payload.nonce !== undefined && attestation.payload.nonce !== cNonce)
    throw oid4vciError('invalid_proof', "The key attestation's nonce is not the c_nonce of the proof")
}
