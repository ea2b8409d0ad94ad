import { DcqlPresentationResult, DcqlQuery, type DcqlCredentialPresentation } from 'dcql'
import type { RequiredCredential, RequiredPredicate } from '../../../db/database.js'
import type { ReadCredential } from '../../credentials/formats/credential-format.js'

/**
 * The type identifier of an SD-JWT VC of one schema (sd-jwt-vc-claims.ts `vctFor`: the service's Type Metadata URL);
 * a schema_id that is itself a URI names the vct of another issuer's SD-JWT VC type, as the checks on receipt read it.
 */
const vctOf = (publicBaseUrl: string, schemaId: string) =>
  schemaId.includes(':') ? schemaId : `${publicBaseUrl}/vct/${encodeURIComponent(schemaId)}`

/**
 * The schemas whose SD-JWT VCs a query may name, looked up by the caller: for each credential
 * type, the schemas it was issued (templated, offered) under; for predicates of no type, the
 * schemas that have every compared attribute.
 */
export interface KnownSchemas {
  ofType: Record<string, string[]>
  withAttributes: string[]
}

/** The DCQL formats a requirement may be answered in (docs/openid4vp.md "DCQL mapping"). */
export const SD_JWT_VC = 'dc+sd-jwt'
/**
 * A VP-JWT (W3C VCDM 1.1, OID4VP 1.0 §B.1.3.1). Its `verifiableCredential` holds JWT-VCs, or the
 * Dock BBS derived proofs of the anonymous-proof route (selective disclosure and predicates in
 * zero knowledge): DCQL has no format identifier for those, so they answer this query inside the
 * same VP-JWT envelope, which carries the nonce and audience.
 */
export const JWT_VC_JSON = 'jwt_vc_json'

type CredentialQuery = DcqlQuery.Input['credentials'][number]

/**
 * The DCQL query (OID4VP 1.0 §6) of a presentation request: each required credential is one
 * credential set whose options are the same credential in each format the service verifies
 * (SD-JWT VC by `vct`, JWT-VC by type), each asking for the
 * required attributes and the attributes its predicates compare. Issuers, schemas and predicates
 * are checked on receipt (presentation-requirements.ts): DCQL names no issuer DID and compares
 * no ranges. Undefined when nothing can be asked (no required credential and no predicate).
 */
export function dcqlQueryFor(
  request: { required_credentials: RequiredCredential[]; required_predicates: RequiredPredicate[] },
  publicBaseUrl: string,
  known: KnownSchemas = { ofType: {}, withAttributes: [] },
): DcqlQuery | undefined {
  const credentials: CredentialQuery[] = []
  const sets: Array<{ options: string[][]; required: boolean }> = []
  const required = request.required_credentials
  const add = (prefix: string, type: string | undefined, schemaId: string | undefined, attributes: string[]) => {
    const names = [...new Set(attributes)]
    const ids: string[][] = []
    // OID4VP 1.0 §6.1 and B.3.5: `meta.vct_values` names the type: the vct of the schema asked for; else
    // the vcts of the schemas the type is issued under, and the type itself (a vct from elsewhere naming it).
    const ofSchemas = (ids: string[]) => ids.map((id) => vctOf(publicBaseUrl, id))
    const named = type ? [type, ...ofSchemas(known.ofType[type] ?? [])] : ofSchemas(known.withAttributes)
    const vcts = schemaId ? [vctOf(publicBaseUrl, schemaId)] : named
    if (vcts.length) {
      const claims = names.length ? { claims: names.map((n) => ({ path: [n] })) } : {}
      const meta = { vct_values: [...new Set(vcts)] }
      credentials.push({ id: `${prefix}_sd_jwt`, format: SD_JWT_VC, meta, ...claims } as CredentialQuery)
      ids.push([`${prefix}_sd_jwt`])
    }
    if (type) {
      credentials.push({ id: `${prefix}_jwt_vc`, format: JWT_VC_JSON, meta: { type_values: [[type]] }, ...(names.length ? { claims: names.map((n) => ({ path: ['credentialSubject', n] })) } : {}) } as CredentialQuery)
      ids.push([`${prefix}_jwt_vc`])
    }
    if (ids.length) sets.push({ options: ids, required: true })
  }
  const untyped = request.required_predicates.filter((p) => !p.credential_type)
  required.forEach((r, i) => {
    const own = request.required_predicates.filter((p) => p.credential_type === r.credential_type).map((p) => p.attribute)
    // A predicate of no type is met by a credential the request accepts: with one required credential, that one.
    const shared = required.length === 1 ? untyped.map((p) => p.attribute) : []
    add(`c${i}`, r.credential_type, r.schema_id, [...(r.required_attributes ?? []), ...own, ...shared])
  })
  const otherTypes = [...new Set(request.required_predicates.flatMap((p) => (p.credential_type && !required.some((r) => r.credential_type === p.credential_type) ? [p.credential_type] : [])))]
  otherTypes.forEach((type, j) => add(`p${j}`, type, undefined, request.required_predicates.filter((p) => p.credential_type === type).map((p) => p.attribute)))
  if (required.length === 0 && untyped.length) add('p_any', undefined, undefined, untyped.map((p) => p.attribute))
  if (credentials.length === 0) return undefined
  const query = DcqlQuery.parse({ credentials, credential_sets: sets } as DcqlQuery.Input)
  DcqlQuery.validate(query)
  return query
}

/**
 * What DCQL says of the presentations received for each credential query id (OID4VP 1.0 §6.4.2
 * as the `dcql` library checks it: format, vct or type, requested claims present, the required
 * credential sets answered): one readable problem per failure; none when the answer satisfies the query.
 */
export function dcqlProblems(query: DcqlQuery, answered: Record<string, ReadCredential[][]>, formatOf: Record<string, string>): string[] {
  const presentations: Record<string, DcqlCredentialPresentation[]> = {}
  for (const [id, items] of Object.entries(answered)) {
    presentations[id] = items.flatMap((read) => read.map((c) => toDcql(c, formatOf[id] ?? '')).filter((p): p is DcqlCredentialPresentation => p !== undefined))
    if (presentations[id].length === 0) return [`vp_token: no credential could be read for the credential query "${id}"`]
  }
  let result
  try {
    result = DcqlPresentationResult.fromDcqlPresentation(presentations, { dcqlQuery: query })
  } catch (error) {
    return [`vp_token does not answer the DCQL query: ${error instanceof Error ? error.message : 'unreadable'}`]
  }
  if (result.can_be_satisfied) return []
  const failed = Object.entries(result.credential_matches).filter(([, m]) => !m.success).map(([id]) => id)
  return [`vp_token does not satisfy the DCQL query${failed.length ? ` (credential queries not met: ${failed.join(', ')})` : ' (a required credential set is not answered)'}`]
}

function toDcql(c: ReadCredential, format: string): DcqlCredentialPresentation | undefined {
  if (format === SD_JWT_VC) {
    const vct = typeof c.document.vct === 'string' ? c.document.vct : (c.schemaIds[0] ?? '')
    return { credential_format: SD_JWT_VC, vct, claims: c.attributes, cryptographic_holder_binding: true } as DcqlCredentialPresentation
  }
  if (format === JWT_VC_JSON) {
    // A derived proof answers a claim it proves a predicate on without disclosing it (the value is checked by presentation-requirements.ts).
    const proven = Object.fromEntries((c.proven?.predicates ?? []).filter((p) => !Object.hasOwn(c.attributes, p.attribute)).map((p) => [p.attribute, `${p.operator} ${p.value}`]))
    return { credential_format: JWT_VC_JSON, type: c.types, claims: { credentialSubject: { ...proven, ...c.attributes } }, cryptographic_holder_binding: true } as DcqlCredentialPresentation
  }
  return undefined
}

/**
 * The claim names each credential query of a query asks for, by query id: an SD-JWT VC's
 * top-level claims, a JWT-VC's members of credentialSubject (the paths `dcqlQueryFor` writes).
 */
export function askedClaims(query: DcqlQuery): Record<string, Set<string>> {
  const asked: Record<string, Set<string>> = {}
  for (const c of query.credentials) {
    const names = (c.claims ?? []).map((claim) => {
      const path = (claim as { path: unknown[] }).path
      const name = c.format === JWT_VC_JSON && path[0] === 'credentialSubject' ? path[1] : path[0]
      return typeof name === 'string' ? name : undefined
    })
    asked[c.id] = new Set(names.filter((n): n is string => n !== undefined))
  }
  return asked
}
