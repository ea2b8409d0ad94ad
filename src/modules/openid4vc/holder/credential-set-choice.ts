import type { DcqlQuery } from 'dcql'
import { UnprocessableError, ValidationError } from '../../../errors.js'

/** The holder's pick per credential set: its index (as a string key) → an option index, or null to leave an optional set out. */
export type SetChoices = Record<string, number | null>

/** One credential set of the request (OpenID4VP 1.0 §6.2) and what the wallet answers of it. */
export interface CredentialSetAnswer {
  index: number
  required: boolean
  options: string[][]
  /** The options every query of which a credential in the wallet meets. */
  satisfiable: number[]
  /** The option answered; null: an optional set left out. */
  chosen: number | null
}

/**
 * Which credential queries the answer covers (OpenID4VP 1.0 §6.4.2): every query no credential
 * set names, and one option of each set. A required set gets the holder's choice or else the
 * satisfiable option that discloses the fewest of the holder's claims (`cost`, ties to the
 * verifier's order); an optional set is answered only when the holder chooses an option, so
 * nothing leaves that the verifier may do without (data minimisation).
 */
export function chooseQueries(
  query: DcqlQuery,
  answerable: ReadonlySet<string>,
  cost: (queryId: string) => number,
  choices: SetChoices = {},
): { queries: string[]; sets: CredentialSetAnswer[] } {
  const ids = query.credentials.map((c) => c.id)
  const sets = query.credential_sets ?? []
  for (const key of Object.keys(choices)) {
    if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) >= sets.length) {
      const has = sets.length ? `credential sets 0 to ${sets.length - 1}` : 'no credential_sets'
      throw new ValidationError(`choices.${key} names no credential set: the request has ${has}`, {
        details: { field: `choices.${key}` },
      })
    }
  }
  const referenced = new Set(sets.flatMap((s) => s.options.flat()))
  const chosen = new Set(ids.filter((id) => !referenced.has(id)))
  const unmet = [...chosen].filter((id) => !answerable.has(id))
  if (unmet.length)
    throw new UnprocessableError(`The wallet holds no credential that meets ${unmet.join(', ')}`, {
      details: { unmet_queries: unmet },
    })

  const answers = sets.map((set, index): CredentialSetAnswer => {
    const options = set.options.map((o) => [...o])
    const satisfiable = options.flatMap((option, i) => (option.every((id) => answerable.has(id)) ? [i] : []))
    const pick = pickOption(index, set.required, options, satisfiable, choices[String(index)], cost, answerable)
    if (pick !== null) for (const id of options[pick]!) chosen.add(id)
    return { index, required: set.required, options, satisfiable, chosen: pick }
  })
  return { queries: ids.filter((id) => chosen.has(id)), sets: answers }
}

/** The option answered of one set: the holder's pick, checked, or the cheapest satisfiable one of a required set. */
function pickOption(
  index: number,
  required: boolean,
  options: string[][],
  satisfiable: number[],
  picked: number | null | undefined,
  cost: (queryId: string) => number,
  answerable: ReadonlySet<string>,
): number | null {
  const field = `choices.${index}`
  const range = `0 to ${options.length - 1}`
  const missing = (option: string[]) => option.filter((id) => !answerable.has(id))
  if (picked === null) {
    if (required)
      throw new ValidationError(
        `${field} cannot be null: credential set ${index} is required, choose one of its options (${range})`,
        { details: { field } },
      )
    return null
  }
  if (picked !== undefined) {
    if (picked >= options.length)
      throw new ValidationError(`${field} must be an option of credential set ${index}: ${range}`, {
        details: { field },
      })
    if (!satisfiable.includes(picked)) {
      const why = `no credential in the wallet meets ${missing(options[picked]!).join(', ')}`
      throw new UnprocessableError(`Option ${picked} of credential set ${index} cannot be answered: ${why}`, {
        details: { field },
      })
    }
    return picked
  }
  if (!required) return null
  const costOf = (i: number) => options[i]!.reduce((sum, id) => sum + cost(id), 0)
  const cheapest = satisfiable.reduce<number | undefined>(
    (best, i) => (best === undefined || costOf(i) < costOf(best) ? i : best),
    undefined,
  )
  if (cheapest === undefined) {
    const listed = options.map((o) => o.join(' + ')).join(' | ')
    throw new UnprocessableError(
      `The wallet holds no credentials that meet any option of credential set ${index} (${listed})`,
      {
        details: { unmet_queries: [...new Set(options.flatMap(missing))] },
      },
    )
  }
  return cheapest
}
