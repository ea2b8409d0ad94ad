import { VC_V2 } from '../../../../shared/vc-contexts.js'
import type { Oid4vciFace } from '../oid4vci-face.js'
import type { EddsaCryptosuite } from './eddsa-suites.js'

/** The OpenID4VCI format of JSON-LD credentials with a Data Integrity proof (Appendix A.1.2). */
const LDP_VC = 'ldp_vc'

/**
 * A Data Integrity credential in OpenID4VCI, under `ldp_vc`: a `credential_definition` with the
 * VCDM 2.0 context, bound to the holder's DID, the cryptosuite as its signing algorithm; claims
 * under `credentialSubject`; answered as a JSON object. One configuration per schema and OpenID4VCI
 * format, so one cryptosuite is served: the one registered with this face.
 */
export function eddsaOid4vci(cryptosuite: EddsaCryptosuite): Oid4vciFace {
  return {
    format: LDP_VC,
    configuration: () => ({
      format: LDP_VC,
      credential_definition: { '@context': [VC_V2], type: ['VerifiableCredential'] },
      cryptographic_binding_methods_supported: ['did:jwk', 'did:key'],
      credential_signing_alg_values_supported: [cryptosuite],
    }),
    claimPath: (attribute) => ['credentialSubject', attribute],
    wireForm: (stored) => JSON.parse(stored) as Record<string, unknown>,
  }
}
