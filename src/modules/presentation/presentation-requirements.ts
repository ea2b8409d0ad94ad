import { predicateBound, type Operator } from '../../crypto/bbs/anonymous-proof-format.js'
import type { RequiredCredential, RequiredPredicate } from '../../db/database.js'
import type { ProvenBound } from '../credentials/formats/credential-format.js'

export type { ProvenBound } from '../credentials/formats/credential-format.js'

/** One credential of a presentation as the checks see it, whatever its format. */
export interface PresentedCredential {
  id: string | undefined
  issuer: string
  /** The login DID of an issuer of this service signing as `issuer` (DESIGN.md "Issuer identity"): a requirement may name either. */
  issuerAlias?: string
  types: string[]
  /** The schema the issuer signed into the credential (its id, and for a JWT-VC its URL), if any. */
  schemaIds: string[]
  /** Disclosed attributes (the subject's, without `id`). */
  attributes: Record<string, unknown>
  /** Predicates a derived proof proved in zero knowledge. */
  provenPredicates: RequiredPredicate[]
  /** The intervals those proofs verified; a required predicate is met when one lies inside it. */
  provenBounds: ProvenBound[]
  revoked: boolean
  /** Every check of this credential passed (signature, holder binding, lifetime, status). */
  valid: boolean
}

/**
 * Names a credential may carry in place of a requested credential type or schema: an mdoc names
 * neither, only its doctype, which the request's query asked for in their stead (dcql-mapping.ts `namesAsked`).
 */
export interface AlsoKnownAs {
  types: Record<string, string[]>
  schemas: Record<string, string[]>
}

const NO_OTHER_NAMES: AlsoKnownAs = { types: {}, schemas: {} }

/**
 * The request's requirements (spec: required_credentials, required_predicates) against what was
 * presented; each unmet requirement is one readable error. Every requirement is met by one
 * credential that passed all its own checks and satisfies all of the requirement's constraints
 * together: a required credential by one credential of its type, issuer and schema that discloses
 * every required attribute and meets every predicate of its type; a predicate by a credential the
 * request accepts (one that meets a required credential; with none required, one of the
 * predicate's type whose issuer the request names, if it names any). So a predicate is never met
 * by a second credential the holder signed itself, nor attributes taken from one credential and
 * a predicate from another.
 *
 * A predicate is met by a verified bound check that implies it (the proven interval lies inside
 * the predicate's: `age >= 21` proven meets `age >= 18`; dates compare whether written YYYY-MM-DD
 * or as days since 1970), or by a disclosed value that satisfies it (a JWT-VC discloses
 * everything). A predicate a proof merely states, without a verified bound behind it, meets nothing.
 */
export function unmetRequirements(
  presented: PresentedCredential[],
  credentials: RequiredCredential[],
  predicates: RequiredPredicate[],
  names: AlsoKnownAs = NO_OTHER_NAMES,
): string[] {
  const usable = presented.filter((c) => c.valid)
  const isCandidate = (c: PresentedCredential, required: RequiredCredential) => candidate(c, required, names)
  const ownPredicates = (required: RequiredCredential) =>
    predicates.filter((p) => p.credential_type === required.credential_type)
  const meets = (c: PresentedCredential, required: RequiredCredential) =>
    isCandidate(c, required) && shortfalls(c, required, ownPredicates(required)).length === 0
  const errors: string[] = []

  for (const required of credentials) {
    const candidates = usable.filter((c) => isCandidate(c, required))
    if (candidates.length === 0) {
      errors.push(`missing required credential ${describe(required)}`)
      continue
    }
    // None meets everything: the errors of the candidate that comes closest.
    const closest = candidates
      .map((c) => shortfalls(c, required, ownPredicates(required)))
      .sort((a, b) => a.length - b.length)[0]!
    errors.push(...closest)
  }

  const namedIssuers = new Set(credentials.flatMap((r) => (r.issuer_did ? [r.issuer_did] : [])))
  for (const predicate of predicates) {
    // A predicate of a required credential's type was checked on that credential above.
    if (predicate.credential_type && credentials.some((r) => r.credential_type === predicate.credential_type)) continue
    const ofType = (c: PresentedCredential) =>
      !predicate.credential_type || isNamed(c, c.types, predicate.credential_type, names.types)
    const byIssuer = Boolean(predicate.credential_type) || credentials.length === 0
    // Why the request does not accept a credential for this predicate; undefined when it does.
    const refusal = (c: PresentedCredential): string | undefined => {
      if (byIssuer)
        return !namedIssuers.size ||
          namedIssuers.has(c.issuer) ||
          (c.issuerAlias !== undefined && namedIssuers.has(c.issuerAlias))
          ? undefined
          : `issued by ${issuerText(c)}, which the request does not name`
      if (credentials.some((r) => meets(c, r))) return undefined
      const gaps = credentials.map((r) =>
        isCandidate(c, r) ? shortfalls(c, r, ownPredicates(r)) : [`issued by ${issuerText(c)}, not ${describe(r)}`],
      )
      return gaps.sort((a, b) => a.length - b.length)[0]!.join('; ')
    }
    const scope = usable.filter((c) => ofType(c) && refusal(c) === undefined)
    const failure = predicateFailure(scope, predicate)
    if (!failure) continue
    const elsewhere = usable.find((c) => ofType(c) && refusal(c) !== undefined && !predicateFailure([c], predicate))
    errors.push(
      elsewhere
        ? `predicate ${text(predicate)} was proven only on a credential the request does not accept (${refusal(elsewhere)})`
        : failure,
    )
  }
  return errors
}

const candidate = (c: PresentedCredential, required: RequiredCredential, names: AlsoKnownAs) =>
  isNamed(c, c.types, required.credential_type, names.types) &&
  (!required.issuer_did || c.issuer === required.issuer_did || c.issuerAlias === required.issuer_did) &&
  (!required.schema_id || isNamed(c, c.schemaIds, required.schema_id, names.schemas))

/** Whether `own` (a credential's types or schemas) holds `name`, or its types hold a name that stands for it. */
const isNamed = (c: PresentedCredential, own: string[], name: string, others: Record<string, string[]>) =>
  own.includes(name) || (Object.hasOwn(others, name) && others[name]!.some((n) => c.types.includes(n)))

/** What keeps one candidate from meeting a required credential: attributes, then its predicates. */
function shortfalls(c: PresentedCredential, required: RequiredCredential, predicates: RequiredPredicate[]): string[] {
  const missing = (required.required_attributes ?? []).filter(
    (name) => !Object.hasOwn(c.attributes, name) && !c.provenPredicates.some((p) => p.attribute === name),
  )
  const errors = missing.map((name) => `required attribute "${name}" of ${required.credential_type} was not disclosed`)
  for (const predicate of predicates) {
    const failure = predicateFailure([c], predicate)
    if (failure) errors.push(`${failure} by ${describe(required)}`)
  }
  return errors
}

/** Why no credential of `scope` meets the predicate, or undefined when one does. */
function predicateFailure(scope: PresentedCredential[], predicate: RequiredPredicate): string | undefined {
  if (scope.some((c) => c.provenBounds.some((b) => implies(b, predicate)))) return undefined
  const disclosed = scope.filter((c) => Object.hasOwn(c.attributes, predicate.attribute))
  if (disclosed.length === 0) return `predicate ${text(predicate)} was not proven`
  if (!disclosed.some((c) => holds(c.attributes[predicate.attribute], predicate)))
    return `predicate ${text(predicate)} is not satisfied`
  return undefined
}

/** The signing DID, with the login DID of this service's issuer behind it when there is one. */
const issuerText = (c: PresentedCredential) => (c.issuerAlias ? `${c.issuer} (issuer ${c.issuerAlias})` : c.issuer)
const text = (p: RequiredPredicate) => `${p.attribute} ${p.operator} ${p.value}`
const describe = (r: RequiredCredential) =>
  `${r.credential_type}${r.issuer_did ? ` from ${r.issuer_did}` : ''}${r.schema_id ? ` of schema ${r.schema_id}` : ''}`

function implies(bound: ProvenBound, predicate: RequiredPredicate): boolean {
  if (bound.attribute !== predicate.attribute) return false
  try {
    const required = predicateBound(bound.dataType, {
      attribute: predicate.attribute,
      operator: predicate.operator as Operator,
      value: predicate.value,
    })
    return bound.min < bound.maxExclusive && bound.min >= required.min && bound.maxExclusive <= required.maxExclusive
  } catch {
    // A requirement no encoded value could be compared with (wrong kind, out of range).
    return false
  }
}

/** Numbers compare as numbers; YYYY-MM-DD dates compare in calendar order (as strings). */
export function holds(value: unknown, predicate: Pick<RequiredPredicate, 'operator' | 'value'>): boolean {
  const bound = predicate.value
  const comparable =
    (typeof value === 'number' && typeof bound === 'number') ||
    (typeof value === 'string' && typeof bound === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value))
  if (!comparable) return false
  const a = value as number | string
  switch (predicate.operator) {
    case '>=':
      return a >= bound
    case '>':
      return a > bound
    case '<=':
      return a <= bound
    case '<':
      return a < bound
    default:
      return false
  }
}
