import { DcqlPresentationResult, DcqlQuery, type DcqlCredentialPresentation } from 'dcql'
import type { RequiredCredential, RequiredPredicate } from '../../../db/database.js'
import { ValidationError } from '../../../errors.js'
import type { CredentialFormat, KnownSchemas, ReadCredential } from '../../credentials/formats/credential-format.js'
import type { AlsoKnownAs } from '../../presentation/presentation-requirements.js'

export type { KnownSchemas } from '../../credentials/formats/credential-format.js'

type CredentialQuery = DcqlQuery.Input['credentials'][number]

/** The formats of `formats` an OpenID4VP request may ask for (those with a DCQL face), in registration order. */
const withDcql = (formats: readonly CredentialFormat[]) =>
  formats.flatMap((f) => (f.dcql ? [{ id: f.id, dcql: f.dcql }] : []))

/**
 * The DCQL query (OID4VP 1.0 §6) of a presentation request: each required credential is one
 * credential set whose options are the same credential in each format that has a DCQL face
 * (docs/openid4vp.md "DCQL mapping"), or in the one format it names, each asking for the
 * required attributes and the attributes its predicates compare. Issuers, schemas and predicates are checked on receipt
 * (presentation-requirements.ts): DCQL names no issuer DID and compares no ranges. Undefined when
 * nothing can be asked (no required credential and no predicate).
 */
export function dcqlQueryFor(
  request: RequestRequirements,
  formats: readonly CredentialFormat[],
  known: KnownSchemas = { ofType: {}, withAttributes: [] },
): DcqlQuery | undefined {
  const faces = withDcql(formats)
  const credentials: CredentialQuery[] = []
  const sets: Array<{ options: string[][]; required: boolean }> = []
  for (const asked of askedCredentials(request)) {
    const claims = [...new Set(asked.attributes)]
    const ids: string[][] = []
    for (const { id: format, dcql } of faces) {
      if (asked.format && asked.format !== format) continue
      const query = dcql.query({ type: asked.type, schemaId: asked.schemaId, claims, known })
      if (!query) continue
      const id = `${asked.prefix}_${dcql.querySuffix}`
      credentials.push({ id, ...query } as CredentialQuery)
      ids.push([id])
    }
    if (asked.format && ids.length === 0)
      throw new ValidationError(
        `${asked.field} asks for ${asked.type} as ${asked.format}, which cannot be asked for: name a schema_id, a credential type or a document type that is issued in that format`,
        { details: { field: asked.field } },
      )
    if (ids.length) sets.push({ options: ids, required: true })
  }
  if (credentials.length === 0) return undefined
  const query = DcqlQuery.parse({ credentials, credential_sets: sets } as DcqlQuery.Input)
  DcqlQuery.validate(query)
  return query
}

type RequestRequirements = { required_credentials: RequiredCredential[]; required_predicates: RequiredPredicate[] }

/** One credential a request asks for: the prefix of its credential query ids, with what each query asks. */
interface AskedCredential {
  prefix: string
  /** The request's field it comes from, for errors. */
  field: string
  type: string | undefined
  schemaId: string | undefined
  format: string | undefined
  attributes: string[]
}

/**
 * The credentials a request asks for, in the order of its queries: each required credential
 * (`c0`, …) with its own predicates' attributes, the types only predicates name (`p0`, …), and
 * the predicates of no type when no credential is required (`p_any`).
 */
function askedCredentials(request: RequestRequirements): AskedCredential[] {
  const required = request.required_credentials
  const untyped = request.required_predicates.filter((p) => !p.credential_type)
  const asked: AskedCredential[] = required.map((r, i) => {
    const own = request.required_predicates
      .filter((p) => p.credential_type === r.credential_type)
      .map((p) => p.attribute)
    // A predicate of no type is met by a credential the request accepts: with one required credential, that one.
    const shared = required.length === 1 ? untyped.map((p) => p.attribute) : []
    return {
      prefix: `c${i}`,
      field: `required_credentials[${i}]`,
      type: r.credential_type,
      schemaId: r.schema_id,
      format: r.format,
      attributes: [...(r.required_attributes ?? []), ...own, ...shared],
    }
  })
  const otherTypes = [
    ...new Set(
      request.required_predicates.flatMap((p) =>
        p.credential_type && !required.some((r) => r.credential_type === p.credential_type) ? [p.credential_type] : [],
      ),
    ),
  ]
  otherTypes.forEach((type, j) =>
    asked.push({
      prefix: `p${j}`,
      field: 'required_predicates',
      type,
      schemaId: undefined,
      format: undefined,
      attributes: request.required_predicates.filter((p) => p.credential_type === type).map((p) => p.attribute),
    }),
  )
  if (required.length === 0 && untyped.length)
    asked.push({
      prefix: 'p_any',
      field: 'required_predicates',
      type: undefined,
      schemaId: undefined,
      format: undefined,
      attributes: untyped.map((p) => p.attribute),
    })
  return asked
}

/**
 * The names a credential of each type and schema the request asks for may carry in place of the
 * type or schema, as the request's DCQL query named them (an mdoc's doctype, OID4VP 1.0 §B.2.3):
 * what presentation-requirements.ts accepts besides the names themselves.
 */
export function namesAsked(
  query: DcqlQuery,
  request: RequestRequirements,
  formats: readonly CredentialFormat[],
): AlsoKnownAs {
  const faces = withDcql(formats)
  const names: AlsoKnownAs = { types: {}, schemas: {} }
  const asked = askedCredentials(request)
  for (const c of query.credentials) {
    const face = faces.find((f) => f.id === c.format)?.dcql
    const of = asked.find((a) => face && c.id === `${a.prefix}_${face.querySuffix}`)
    const carried = face?.namesOf?.(c) ?? []
    if (!of || carried.length === 0) continue
    if (of.type) (names.types[of.type] ??= []).push(...carried)
    if (of.schemaId) (names.schemas[of.schemaId] ??= []).push(...carried)
  }
  return names
}

/** `client_metadata.vp_formats_supported` (OID4VP 1.0 §11.1): each format with a DCQL face, for these JWS algorithms. */
export function vpFormatsSupported(
  formats: readonly CredentialFormat[],
  algs: readonly string[],
): Record<string, Record<string, unknown>> {
  return Object.fromEntries(withDcql(formats).map((f) => [f.id, f.dcql.vpFormatSupported(algs)]))
}

/**
 * What DCQL says of the presentations received for each credential query id (OID4VP 1.0 §6.4.2
 * as the `dcql` library checks it: format, vct or type, requested claims present, the required
 * credential sets answered): one readable problem per failure; none when the answer satisfies the
 * query. Each credential is read for DCQL by the format its query asked for (`formatOf`).
 */
export function dcqlProblems(
  query: DcqlQuery,
  answered: Record<string, ReadCredential[][]>,
  formatOf: Record<string, string>,
  formats: readonly CredentialFormat[],
): string[] {
  const faces = withDcql(formats)
  const presentations: Record<string, DcqlCredentialPresentation[]> = {}
  for (const [id, items] of Object.entries(answered)) {
    const face = faces.find((f) => f.id === formatOf[id])?.dcql
    presentations[id] = face ? items.flatMap((read) => read.map((c) => face.presented(c))) : []
    if (presentations[id].length === 0)
      return [`vp_token: no credential could be read for the credential query "${id}"`]
  }
  let result
  try {
    result = DcqlPresentationResult.fromDcqlPresentation(presentations, { dcqlQuery: query })
  } catch (error) {
    return [`vp_token does not answer the DCQL query: ${error instanceof Error ? error.message : 'unreadable'}`]
  }
  if (result.can_be_satisfied) return []
  const failed = Object.entries(result.credential_matches)
    .filter(([, m]) => !m.success)
    .map(([id]) => id)
  return [
    `vp_token does not satisfy the DCQL query${failed.length ? ` (credential queries not met: ${failed.join(', ')})` : ' (a required credential set is not answered)'}`,
  ]
}

/**
 * The claim names each credential query of a query asks for, by query id, as its format reads its
 * claims paths (an SD-JWT VC's top-level claims, a JWT-VC's members of credentialSubject).
 */
export function askedClaims(query: DcqlQuery, formats: readonly CredentialFormat[]): Record<string, Set<string>> {
  const faces = withDcql(formats)
  const asked: Record<string, Set<string>> = {}
  for (const c of query.credentials) {
    const face = faces.find((f) => f.id === c.format)?.dcql
    const names = (c.claims ?? []).map((claim) => {
      const path = (claim as { path: unknown[] }).path
      if (face) return face.claimOf(path)
      return typeof path[0] === 'string' ? path[0] : undefined
    })
    asked[c.id] = new Set(names.filter((n): n is string => n !== undefined))
  }
  return asked
}
