import type { DcqlCredentialPresentation } from 'dcql'
import type { DcqlCredentialQuery, DcqlFace } from '../credential-format.js'
import { vctFor } from './sd-jwt-vc-claims.js'

const FORMAT = 'dc+sd-jwt'

/**
 * SD-JWT VC asked for over OpenID4VP (OID4VP 1.0 §B.3): by `vct`, the claims top-level, presented
 * with a KB-JWT (§B.3.5). A schema_id that is itself a URI names the vct of another issuer's
 * SD-JWT VC type, as the checks on receipt read it.
 */
export function sdJwtVcDcql(deps: { publicBaseUrl: string }): DcqlFace {
  const vctOf = (schemaId: string) => (schemaId.includes(':') ? schemaId : vctFor(deps.publicBaseUrl, schemaId))
  return {
    querySuffix: 'sd_jwt',

    vpFormatSupported: (algs) => ({ 'sd-jwt_alg_values': [...algs], 'kb-jwt_alg_values': [...algs] }),

    query({ type, schemaId, claims, known }) {
      // OID4VP 1.0 §6.1 and B.3.5: `meta.vct_values` names the type: the vct of the schema asked for; else
      // the vcts of the schemas the type is issued under, and the type itself (a vct from elsewhere naming it).
      const named = type ? [type, ...(known.ofType[type] ?? []).map(vctOf)] : known.withAttributes.map(vctOf)
      const vcts = schemaId ? [vctOf(schemaId)] : named
      if (vcts.length === 0) return undefined
      return {
        format: FORMAT,
        meta: { vct_values: [...new Set(vcts)] },
        ...(claims.length ? { claims: claims.map((n) => ({ path: [n] })) } : {}),
      } as DcqlCredentialQuery
    },

    claimOf: (path) => (typeof path[0] === 'string' ? path[0] : undefined),

    presented(c) {
      const vct = typeof c.document.vct === 'string' ? c.document.vct : (c.schemaIds[0] ?? '')
      return {
        credential_format: FORMAT,
        vct,
        claims: c.attributes,
        cryptographic_holder_binding: true,
      } as DcqlCredentialPresentation
    },
  }
}
