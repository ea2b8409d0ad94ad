import { predicateBound, type Operator } from '../../crypto/bbs/anonymous-proof-format.js'
import type { RequiredCredential, RequiredPredicate } from '../../db/database.js'

/** A verified bound check: `min <= encoded(attribute) < maxExclusive` (bbs-messages.ts encoding). */
export interface ProvenBound {
  attribute: string
  dataType: 'number' | 'date'
  min: number
  maxExclusive: number
}

/** One credential of a presentation as the checks see it, whatever its format. */
export interface PresentedCredential {
  id: string | undefined
  format: 'jwt_vc' | 'bbs_derived'
  issuer: string
  types: string[]
  /** Disclosed attributes (the subject's, without `id`). */
  attributes: Record<string, unknown>
  /** Predicates a derived proof proved in zero knowledge. */
  provenPredicates: RequiredPredicate[]
  /** The intervals those proofs verified; a required predicate is met when one lies inside it. */
  provenBounds: ProvenBound[]
  revoked: boolean
}

/**
 * The request's requirements (spec: required_credentials, required_predicates) against what was
 * presented. Each unmet requirement is one readable error. A predicate is met by a verified bound
 * check that implies it (the proven interval lies inside the predicate's: `age >= 21` proven meets
 * `age >= 18`; dates compare whether written YYYY-MM-DD or as days since 1970), or by a disclosed
 * value that satisfies it (a JWT-VC discloses everything). A predicate a proof merely states,
 * without a verified bound behind it, meets nothing.
 */
export function unmetRequirements(presented: PresentedCredential[], credentials: RequiredCredential[], predicates: RequiredPredicate[]): string[] {
  const errors: string[] = []
  for (const required of credentials) {
    const candidates = presented.filter((c) => c.types.includes(required.credential_type) && (!required.issuer_did || c.issuer === required.issuer_did))
    const from = required.issuer_did ? ` from ${required.issuer_did}` : ''
    if (candidates.length === 0) {
      errors.push(`missing required credential ${required.credential_type}${from}`)
      continue
    }
    const missing = (required.required_attributes ?? []).filter((name) => !candidates.some((c) => Object.hasOwn(c.attributes, name) || c.provenPredicates.some((p) => p.attribute === name)))
    for (const name of missing) errors.push(`required attribute "${name}" of ${required.credential_type} was not disclosed`)
  }
  for (const predicate of predicates) {
    const scope = presented.filter((c) => !predicate.credential_type || c.types.includes(predicate.credential_type))
    const text = `${predicate.attribute} ${predicate.operator} ${predicate.value}`
    if (scope.some((c) => c.provenBounds.some((b) => implies(b, predicate)))) continue
    const disclosed = scope.filter((c) => Object.hasOwn(c.attributes, predicate.attribute))
    if (disclosed.length === 0) errors.push(`predicate ${text} was not proven`)
    else if (!disclosed.some((c) => holds(c.attributes[predicate.attribute], predicate))) errors.push(`predicate ${text} is not satisfied`)
  }
  return errors
}

function implies(bound: ProvenBound, predicate: RequiredPredicate): boolean {
  if (bound.attribute !== predicate.attribute) return false
  try {
    const required = predicateBound(bound.dataType, { attribute: predicate.attribute, operator: predicate.operator as Operator, value: predicate.value })
    return bound.min < bound.maxExclusive && bound.min >= required.min && bound.maxExclusive <= required.maxExclusive
  } catch {
    // A requirement no encoded value could be compared with (wrong kind, out of range).
    return false
  }
}

/** Numbers compare as numbers; YYYY-MM-DD dates compare in calendar order (as strings). */
export function holds(value: unknown, predicate: Pick<RequiredPredicate, 'operator' | 'value'>): boolean {
  const bound = predicate.value
  const comparable = (typeof value === 'number' && typeof bound === 'number') || (typeof value === 'string' && typeof bound === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value))
  if (!comparable) return false
  const a = value as number | string
  switch (predicate.operator) {
    case '>=': return a >= bound
    case '>': return a > bound
    case '<=': return a <= bound
    case '<': return a < bound
    default: return false
  }
}
