import type { AuthorizationServerMetadata } from '@openid4vc/oauth2'
import type { CredentialIssuerMetadata } from '@openid4vc/openid4vci'
import type { ResponseEncryption, TrustedWalletProvider } from './oid4vci-policy.table.js'

/** An issuer's OpenID4VCI policy (docs/openid4vci.md "Issuer policy"). */
export interface Oid4vciPolicy {
  par_required: boolean
  dpop_required: boolean
  dpop_nonce_required: boolean
  wallet_attestation_required: boolean
  key_attestation_required: boolean
  trusted_wallet_providers: TrustedWalletProvider[]
  credential_response_encryption: ResponseEncryption
}

/** Without a policy the issuer behaves as it always has: DPoP per offer, server nonces on every DPoP proof, nothing else required. */
export const DEFAULT_POLICY: Readonly<Oid4vciPolicy> = Object.freeze({
  par_required: false,
  dpop_required: false,
  dpop_nonce_required: true,
  wallet_attestation_required: false,
  key_attestation_required: false,
  trusted_wallet_providers: [],
  credential_response_encryption: 'none',
})

/** draft-ietf-oauth-attestation-based-client-auth §13.4: the token endpoint authentication method of wallet attestations. */
export const ATTESTATION_AUTH_METHOD = 'attest_jwt_client_auth'
/** Algorithms of wallet and key attestations and their proofs of possession (HAIP 1.0: ES256). */
export const ATTESTATION_ALGS = ['ES256']
/** OID4VCI 1.0 §10 with HAIP 1.0: ECDH-ES over P-256, AES-GCM. */
export const RESPONSE_ENCRYPTION = { alg: ['ECDH-ES'], enc: ['A128GCM', 'A256GCM'] }

/** Whether the issuer accepts wallet and key attestations: it trusts some wallet provider. */
export const acceptsAttestations = (policy: Oid4vciPolicy): boolean => policy.trusted_wallet_providers.length > 0

/** RFC 8414 and RFC 9126 §5 members the policy decides: PAR, and wallet attestation as client authentication. */
export function withAuthorizationPolicy(
  metadata: AuthorizationServerMetadata,
  policy: Oid4vciPolicy,
  parEndpoint: string,
): AuthorizationServerMetadata {
  const methods = policy.wallet_attestation_required
    ? [ATTESTATION_AUTH_METHOD]
    : acceptsAttestations(policy)
      ? ['none', ATTESTATION_AUTH_METHOD]
      : metadata.token_endpoint_auth_methods_supported
  return {
    ...metadata,
    pushed_authorization_request_endpoint: parEndpoint,
    require_pushed_authorization_requests: policy.par_required,
    token_endpoint_auth_methods_supported: methods,
    ...(acceptsAttestations(policy)
      ? {
          client_attestation_signing_alg_values_supported: ATTESTATION_ALGS,
          client_attestation_pop_signing_alg_values_supported: ATTESTATION_ALGS,
        }
      : {}),
  }
}

/** OID4VCI 1.0 §12.2.4 members the policy decides: response encryption (§10) and key attestations (Appendix D) of every configuration. */
export function withIssuancePolicy(
  metadata: CredentialIssuerMetadata,
  policy: Oid4vciPolicy,
): CredentialIssuerMetadata {
  const configurations: Record<string, unknown> = {}
  for (const [id, configuration] of Object.entries(metadata.credential_configurations_supported)) {
    configurations[id] = acceptsAttestations(policy) ? withKeyAttestations(configuration, policy) : configuration
  }
  return {
    ...metadata,
    credential_configurations_supported:
      configurations as CredentialIssuerMetadata['credential_configurations_supported'],
    ...(policy.credential_response_encryption === 'none'
      ? {}
      : {
          credential_response_encryption: {
            alg_values_supported: RESPONSE_ENCRYPTION.alg,
            enc_values_supported: RESPONSE_ENCRYPTION.enc,
            encryption_required: policy.credential_response_encryption === 'required',
          },
        }),
  }
}

/**
 * The `attestation` proof type (Appendix F.3) of an issuer that trusts wallet providers, and, when
 * its policy requires key attestations, `key_attestations_required` on every proof type (D.2).
 */
function withKeyAttestations(configuration: Record<string, unknown>, policy: Oid4vciPolicy): Record<string, unknown> {
  const proofs = (configuration.proof_types_supported ?? {}) as Record<string, Record<string, unknown>>
  const required = policy.key_attestation_required ? { key_attestations_required: {} } : {}
  const marked: Record<string, unknown> = {}
  for (const [type, spec] of Object.entries(proofs)) marked[type] = { ...spec, ...required }
  marked.attestation = { proof_signing_alg_values_supported: ATTESTATION_ALGS, ...required }
  return { ...configuration, proof_types_supported: marked }
}
