import type { Jwk } from '@openid4vc/oauth2'
import type { IssuerMetadataResult, Openid4vciIssuer } from '@openid4vc/openid4vci'
import { carriesPrivateKey } from './oid4vci-context.js'
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

/**
 * Appendix F.3: the keys of an `attestation` proof, a key attestation by a trusted wallet provider
 * (the library's callbacks carry the trust) with the c_nonce; each key gets a credential.
 */
export async function attestedKeys(
  library: Openid4vciIssuer,
  issuerMetadata: IssuerMetadataResult,
  jwt: string,
  cNonce: string,
  now: Date,
): Promise<Jwk[]> {
  let verified
  try {
    verified = await library.verifyCredentialRequestAttestationProof({
      issuerMetadata,
      keyAttestationJwt: jwt,
      expectedNonce: cNonce,
      now,
    })
  } catch (error) {
    throw oid4vciError(
      'invalid_proof',
      'The attestation proof is not a key attestation of a trusted wallet provider for this nonce',
      error,
    )
  }
  const keys = verified.payload.attested_keys
  if (keys.length === 0 || keys.some(carriesPrivateKey))
    throw oid4vciError('invalid_proof', 'The attestation proof must attest public keys')
  return keys
}
