import type { Oid4vciFace } from '../oid4vci-face.js'
import { SD_JWT_VC, vctFor } from './sd-jwt-vc-claims.js'

/** SD-JWT VC in OpenID4VCI (Appendix A.3): typed by `vct`, bound to a `jwk`, signed ES256 as HAIP wallets require; claims at the top level. */
export const sdJwtVcOid4vci: Oid4vciFace = {
  format: SD_JWT_VC,
  configuration: (schema, publicBaseUrl) => ({
    format: SD_JWT_VC,
    vct: vctFor(publicBaseUrl, schema.id),
    cryptographic_binding_methods_supported: ['jwk'],
    credential_signing_alg_values_supported: ['ES256'],
  }),
  claimPath: (attribute) => [attribute],
}
