/**
 * The structural rules of the VC Data Model (2.0, and 1.1 for credentials naming its context)
 * that a caller-built credential must meet before it is signed: what JSON-LD expansion alone
 * does not catch (types present, identifiers that are URLs, dates that are xsd:dateTimeStamp,
 * typed status, evidence, schema and terms-of-use entries, language value objects, related
 * resources with a digest). Each broken rule is one readable problem.
 */
import { isObject } from '../credentials/formats/jwt-checks.js'

import { VC_V1, VC_V2 } from '../../shared/vc-contexts.js'

type Json = Record<string, unknown>
// RFC 3986 absolute URI: a scheme, then no whitespace (DIDs and URNs included).
const isUrl = (v: unknown): v is string => typeof v === 'string' && /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/.test(v)
// xsd:dateTimeStamp: a dateTime with its timezone (VCDM 2.0 §4.9).
const DATE_TIME_STAMP =
  /^-?\d{4,}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-](0\d|1[0-4]):[0-5]\d)$/
/** An xsd:dateTimeStamp naming a day that exists (a regular expression alone lets 2026-02-30 through). */
function isDateTimeStamp(value: unknown): boolean {
  if (typeof value !== 'string' || !DATE_TIME_STAMP.test(value)) return false
  const [year, month, day] = value
    .slice(value.startsWith('-') ? 1 : 0)
    .split('T', 1)[0]!
    .split('-')
    .map(Number) as [number, number, number]
  const probe = new Date(Date.UTC(2000, month - 1, day))
  probe.setUTCFullYear(year)
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day
}
const LANGUAGE_VALUE_KEYS = new Set(['@value', '@language', '@direction'])

export function issuerIdOf(credential: Json): string | undefined {
  const issuer = credential.issuer
  return typeof issuer === 'string' ? issuer : isObject(issuer) && typeof issuer.id === 'string' ? issuer.id : undefined
}

/** The data model version a credential claims by its first context. */
export function modelVersion(credential: Json): '1.1' | '2.0' | undefined {
  const first = Array.isArray(credential['@context']) ? credential['@context'][0] : undefined
  return first === VC_V2 ? '2.0' : first === VC_V1 ? '1.1' : undefined
}

export function credentialInputProblems(credential: Json): string[] {
  const problems: string[] = []
  const context = credential['@context']
  if (!Array.isArray(context) || context.length === 0) problems.push('@context must be a non-empty array')
  else {
    if (context[0] !== VC_V2 && context[0] !== VC_V1) problems.push(`@context must begin with ${VC_V2} (or ${VC_V1})`)
    context.forEach((c, i) => {
      if (typeof c === 'string' ? !isUrl(c) : !isObject(c))
        problems.push(`@context[${i}] must be a URL or a context object`)
    })
  }
  const version = modelVersion(credential)
  typeProblems(credential.type, 'type', problems, 'VerifiableCredential')
  if ('id' in credential && !isUrl(credential.id)) problems.push('id must be a single URL')
  issuerProblems(credential.issuer, problems)
  subjectProblems(credential.credentialSubject, problems)
  const dates = version === '1.1' ? ['issuanceDate', 'expirationDate'] : ['validFrom', 'validUntil']
  for (const name of dates) {
    if (name in credential && !isDateTimeStamp(credential[name]))
      problems.push(`${name} must be an xsd:dateTimeStamp (a date and time with its timezone)`)
  }
  if (version === '1.1' && credential.issuanceDate === undefined)
    problems.push('issuanceDate is required in a VC 1.1 credential')
  const [from, until] = dates.map((n) => (typeof credential[n] === 'string' ? Date.parse(credential[n]) : NaN))
  if (from !== undefined && until !== undefined && from > until)
    problems.push(`${dates[0]} must not be later than ${dates[1]}`)
  for (const name of ['credentialStatus', 'termsOfUse', 'evidence', 'refreshService', 'credentialSchema']) {
    if (name in credential) typedEntries(credential[name], name, problems, name === 'credentialSchema')
  }
  for (const name of ['name', 'description']) if (name in credential) languageProblems(credential[name], name, problems)
  if ('relatedResource' in credential) relatedResourceProblems(credential.relatedResource, problems)
  statusEntryProblems(credential, problems)
  return problems
}

function typeProblems(type: unknown, field: string, problems: string[], required?: string): void {
  if (!Array.isArray(type) || type.length === 0 || type.some((t) => typeof t !== 'string' || t === '')) {
    problems.push(`${field} must be a non-empty array of strings`)
    return
  }
  if (required && !type.includes(required)) problems.push(`${field} must include "${required}"`)
}

function issuerProblems(issuer: unknown, problems: string[]): void {
  if (typeof issuer === 'string') {
    if (!isUrl(issuer)) problems.push('issuer must be a URL')
  } else if (isObject(issuer)) {
    if (!isUrl(issuer.id)) problems.push('issuer.id must be a URL')
    for (const name of ['name', 'description'])
      if (name in issuer) languageProblems(issuer[name], `issuer.${name}`, problems)
  } else problems.push('issuer is required: a URL or an object with an id')
}

function subjectProblems(subject: unknown, problems: string[]): void {
  const subjects = Array.isArray(subject) ? subject : [subject]
  if (subject === undefined || subjects.length === 0) {
    problems.push('credentialSubject is required')
    return
  }
  subjects.forEach((s, i) => {
    const field = Array.isArray(subject) ? `credentialSubject[${i}]` : 'credentialSubject'
    if (!isObject(s) || Object.keys(s).length === 0) problems.push(`${field} must be an object with at least one claim`)
    else if ('id' in s && !isUrl(s.id)) problems.push(`${field}.id must be a single URL`)
  })
}

function typedEntries(value: unknown, field: string, problems: string[], idRequired: boolean): void {
  const entries = Array.isArray(value) ? value : [value]
  if (entries.length === 0) problems.push(`${field} must not be empty`)
  entries.forEach((entry, i) => {
    const at = Array.isArray(value) ? `${field}[${i}]` : field
    if (!isObject(entry)) return void problems.push(`${at} must be an object`)
    const type = entry.type
    if (
      !(typeof type === 'string' && type !== '') &&
      !(Array.isArray(type) && type.length > 0 && type.every((t) => typeof t === 'string'))
    )
      problems.push(`${at}.type is required (a string or strings)`)
    if ('id' in entry ? !isUrl(entry.id) : idRequired) problems.push(`${at}.id must be a single URL`)
  })
}

function languageProblems(value: unknown, field: string, problems: string[]): void {
  const values = Array.isArray(value) ? value : [value]
  for (const v of values) {
    if (typeof v === 'string') continue
    if (!isObject(v) || typeof v['@value'] !== 'string' || Object.keys(v).some((k) => !LANGUAGE_VALUE_KEYS.has(k))) {
      problems.push(`${field} must be a string or language value objects with only @value, @language and @direction`)
      return
    }
  }
}

function relatedResourceProblems(value: unknown, problems: string[]): void {
  const resources = Array.isArray(value) ? value : [value]
  const seen = new Set<string>()
  resources.forEach((r, i) => {
    const at = `relatedResource[${i}]`
    if (!isObject(r)) return void problems.push(`${at} must be an object`)
    if (!isUrl(r.id)) problems.push(`${at}.id must be a URL`)
    else if (seen.has(r.id)) problems.push(`${at}.id repeats ${r.id}: each related resource once`)
    else seen.add(r.id)
    if (typeof r.digestSRI !== 'string' && typeof r.digestMultibase !== 'string')
      problems.push(`${at} needs digestSRI or digestMultibase`)
  })
}

/** Bitstring Status List §2.1: every BitstringStatusListEntry, wherever it sits, well formed. */
function statusEntryProblems(root: Json, problems: string[]): void {
  const pending: unknown[] = [root]
  while (pending.length) {
    const node = pending.pop()
    if (Array.isArray(node)) pending.push(...node)
    else if (isObject(node)) {
      const types = Array.isArray(node.type) ? node.type : [node.type]
      if (types.includes('BitstringStatusListEntry')) {
        if (typeof node.statusPurpose !== 'string') problems.push('a BitstringStatusListEntry needs a statusPurpose')
        if (typeof node.statusListIndex !== 'string' || !/^(0|[1-9]\d*)$/.test(node.statusListIndex))
          problems.push('a BitstringStatusListEntry statusListIndex must be a base-10 integer string')
        if (!isUrl(node.statusListCredential))
          problems.push('a BitstringStatusListEntry statusListCredential must be a URL')
      }
      pending.push(...Object.values(node))
    }
  }
}
