import { vctFor } from './sd-jwt-vc-claims.js'

/** The schema fields Type Metadata is made of. */
export interface TypedSchema {
  id: string
  name: string
  description: string
  attributes: Array<{ name: string; description: string; always_disclosed?: boolean }>
}

/**
 * SD-JWT VC Type Metadata (draft-ietf-oauth-sd-jwt-vc §6): what `vct` resolves to. Each attribute
 * is a claim by its path; `sd` says whether the issuer makes it selectively disclosable (§6.5.2).
 */
export function typeMetadata(schema: TypedSchema, publicBaseUrl: string): Record<string, unknown> {
  return {
    vct: vctFor(publicBaseUrl, schema.id),
    name: schema.name,
    ...(schema.description ? { description: schema.description } : {}),
    display: [{ locale: 'en', name: schema.name, ...(schema.description ? { description: schema.description } : {}) }],
    claims: schema.attributes.map((a) => ({
      path: [a.name],
      sd: a.always_disclosed ? 'always' : 'allowed',
      display: [{ locale: 'en', label: a.name, ...(a.description ? { description: a.description } : {}) }],
    })),
  }
}
