import type { Oid4vciFace } from '../oid4vci-face.js'
import { MSO_MDOC } from './mdoc-ids.js'

/** COSE ES256 (RFC 9053 §2.1): the algorithm of the MSO's COSE_Sign1 (ISO/IEC 18013-5 §9.1.3.6, Table 22). */
const COSE_ES256 = -7

/**
 * mdoc in OpenID4VCI 1.0 (Appendix A.2): typed by `doctype`, bound to a COSE key (the key proof's
 * key becomes the MSO's DeviceKey), signed by the Document Signer; claims are `[namespace, element]`.
 * A schema that names no doctype has no mdoc configuration.
 */
export const mdocOid4vci: Oid4vciFace = {
  format: MSO_MDOC,
  configuration: (schema) =>
    schema.mdoc
      ? {
          format: MSO_MDOC,
          doctype: schema.mdoc.doctype,
          cryptographic_binding_methods_supported: ['cose_key'],
          credential_signing_alg_values_supported: [COSE_ES256],
        }
      : undefined,
  // ISO/IEC 18013-5 §9.1.2.4: the DeviceKey of an mDL is an EC2 P-256 key here, so the proof key is ES256.
  proofAlgs: ['ES256'],
  proofAlgsReason:
    'An mso_mdoc credential binds a P-256 device key (ISO/IEC 18013-5 §9.1.2.4): sign the key proof ES256 with a P-256 key',
  claimPath: (attribute, schema) => [schema.mdoc?.namespace ?? '', attribute],
}
