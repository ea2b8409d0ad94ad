import type { DcqlCredentialPresentation } from 'dcql'
import type { DcqlCredentialQuery, DcqlFace } from '../credential-format.js'
import { MSO_MDOC } from './mdoc-ids.js'
import { MDOC_SCHEMAS } from './mdoc-schemas.js'

/** COSE ES256 (RFC 9053 §2.1): the only algorithm this service's mdocs are signed with, and the device keys it binds to are P-256. */
const ES256 = -7

/**
 * An mdoc asked for over OpenID4VP (OID4VP 1.0 Appendix B.2): by `meta.doctype_value` (§B.2.3), the
 * doctype of the schema asked for or of the schemas the credential type is issued under, each
 * claim by `[namespace, element identifier]` (§B.2.4); presented as a DeviceResponse (§B.2.6)
 * whose issuer and device signatures are COSE ES256 (§B.2.1 `issuerauth_alg_values`, `deviceauth_alg_values`).
 */
export const mdocDcql: DcqlFace = {
  querySuffix: 'mdoc',
  x509Issuers: true,

  vpFormatSupported: () => ({ issuerauth_alg_values: [ES256], deviceauth_alg_values: [ES256] }),

  query({ type, schemaId, claims, known }) {
    const schemas = schemaId ? [schemaId] : type ? (known.ofType[type] ?? []) : known.withAttributes
    // DCQL names one doctype per query: that of the first schema (by id) that places its credentials in an
    // mdoc; a type that is itself a ready-made doctype (ISO mDL, EU PID) is asked in that doctype's namespace.
    const placement =
      schemas.map((id) => known.placements?.[id]?.mdoc).find((p) => p) ??
      (schemaId ? undefined : MDOC_SCHEMAS.find((s) => s.mdoc.doctype === type)?.mdoc)
    if (!placement) return undefined
    return {
      format: MSO_MDOC,
      meta: { doctype_value: placement.doctype },
      ...(claims.length ? { claims: claims.map((n) => ({ path: [placement.namespace, n] })) } : {}),
    } as DcqlCredentialQuery
  },

  // A schema places all of its attributes in one namespace: the element identifier is the attribute.
  claimOf: (path) => (typeof path[1] === 'string' ? path[1] : undefined),

  namesOf: (query) => {
    const doctype = (query.meta as { doctype_value?: unknown } | undefined)?.doctype_value
    return typeof doctype === 'string' ? [doctype] : []
  },

  presented(c) {
    return {
      credential_format: MSO_MDOC,
      doctype: typeof c.document.docType === 'string' ? c.document.docType : '',
      namespaces: (c.document.nameSpaces ?? {}) as Record<string, Record<string, unknown>>,
      cryptographic_holder_binding: true,
    } as DcqlCredentialPresentation
  },
}
