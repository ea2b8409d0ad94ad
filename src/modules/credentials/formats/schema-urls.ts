import { isObject } from './jwt-checks.js'
/**
 * Where a schema's public documents live (docs/formats.md, "vc+jwt" and "jwt_vc_json"): the JSON-LD
 * context a VCDM 2.0 credential names in `@context`, the one a VCDM 1.1 credential names, the JSON
 * Schema (2020-12) the `credentialSchema` of both names, and the vocabulary their attribute terms
 * expand under. One place, read by the formats that write the URLs into credentials and by the
 * routes that answer them.
 */
export const schemaPaths = {
  context: (schemaId: string) => `/api/schemas/${encodeURIComponent(schemaId)}/context.jsonld`,
  contextV1: (schemaId: string) => `/api/schemas/${encodeURIComponent(schemaId)}/context-v1.jsonld`,
  jsonSchema: (schemaId: string) => `/api/schemas/${encodeURIComponent(schemaId)}/json-schema.json`,
  vocabulary: (schemaId: string) => `/api/schemas/${encodeURIComponent(schemaId)}/vocab#`,
}

/**
 * The context of a credential of `type` under the schema: the credential type is chosen per
 * issuance, so it rides in the query and the context defines it as a term (JSON-LD 1.1 has no
 * way to scope `@vocab` to `type` values alone, and a top-level `@vocab` would let any misspelt
 * attribute through a safe-mode expansion).
 */
export function schemaContextUrl(publicBaseUrl: string, schemaId: string, type: string): string {
  return `${publicBaseUrl}${schemaPaths.context(schemaId)}?type=${encodeURIComponent(type)}`
}

/** The same for a VCDM 1.1 credential (`jwt_vc_json`), whose base context defines fewer terms. */
export function schemaContextV1Url(publicBaseUrl: string, schemaId: string, type: string): string {
  return `${publicBaseUrl}${schemaPaths.contextV1(schemaId)}?type=${encodeURIComponent(type)}`
}

export function schemaJsonSchemaUrl(publicBaseUrl: string, schemaId: string): string {
  return `${publicBaseUrl}${schemaPaths.jsonSchema(schemaId)}`
}

export function schemaVocabulary(publicBaseUrl: string, schemaId: string): string {
  return `${publicBaseUrl}${schemaPaths.vocabulary(schemaId)}`
}

const JSON_SCHEMA_PATH = /\/api\/schemas\/([^/?#]+)\/json-schema\.json$/

/** The schema id a `credentialSchema` URL of this shape names (what `schemaId` says in a VCDM 1.1 credential). */
export function schemaIdOfJsonSchemaUrl(url: string): string | undefined {
  const match = JSON_SCHEMA_PATH.exec(url)
  if (!match) return undefined
  try {
    return decodeURIComponent(match[1]!)
  } catch {
    return undefined
  }
}

/** Each `credentialSchema` id, and the schema id of this service's JSON Schema URL beside it (what `schemaId` is in jwt_vc_json). */
export function schemaIdsOf(credentialSchema: unknown): string[] {
  const entries = Array.isArray(credentialSchema) ? credentialSchema : [credentialSchema]
  return entries.flatMap((e) => {
    if (!isObject(e) || typeof e.id !== 'string') return []
    const schemaId = schemaIdOfJsonSchemaUrl(e.id)
    return schemaId === undefined ? [e.id] : [e.id, schemaId]
  })
}
