import type { Oid4vciFace } from '../oid4vci-face.js'
import { JWT_VC_JSON } from './jwt-vc-json-id.js'

/** JWT-VC in OpenID4VCI (Appendix A.1.1): a `credential_definition` type, bound to the holder's DID, signed EdDSA; claims under `credentialSubject`. */
export const jwtVcJsonOid4vci: Oid4vciFace = {
  format: JWT_VC_JSON,
  configuration: () => ({
    format: JWT_VC_JSON,
    credential_definition: { type: ['VerifiableCredential'] },
    cryptographic_binding_methods_supported: ['did:jwk', 'did:key'],
    credential_signing_alg_values_supported: ['EdDSA'],
  }),
  claimPath: (attribute) => ['credentialSubject', attribute],
}
