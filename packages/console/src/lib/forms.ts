/** Form values to API bodies, with messages that name the field. */

/** The schema data types a person can pick when making a schema (the API also has file, object, array). */
export const DATA_TYPES = ['string', 'number', 'boolean', 'date', 'email', 'url'] as const
export type DataType = (typeof DATA_TYPES)[number]

export const DATA_TYPE_LABELS: Record<string, string> = {
  string: 'Text',
  number: 'Number',
  boolean: 'Yes / no',
  date: 'Date',
  email: 'Email address',
  url: 'Web address (URL)',
  file: 'File reference (URL or CID)',
  object: 'Object (JSON)',
  array: 'List (JSON)',
}

export interface SchemaAttribute {
  name: string
  data_type: string
  required?: boolean
  description?: string
}

/** The HTML input of a data type: a typed control the browser checks (number, date, email, url), a checkbox for booleans. */
export function inputKind(dataType: string): {
  type: 'text' | 'number' | 'checkbox' | 'date' | 'email' | 'url' | 'json'
  step?: string
} {
  switch (dataType) {
    case 'number':
      return { type: 'number', step: 'any' }
    case 'boolean':
      return { type: 'checkbox' }
    case 'date':
      return { type: 'date' }
    case 'email':
      return { type: 'email' }
    case 'url':
      return { type: 'url' }
    case 'object':
    case 'array':
      return { type: 'json' }
    default:
      return { type: 'text' }
  }
}

/** One form field's value as typed: text for inputs, a boolean for checkboxes. */
export type FieldValue = string | boolean

/**
 * The form's values to the credential's attributes, typed per the schema: numbers as numbers,
 * booleans as booleans, dates as YYYY-MM-DD text; empty optional fields are left out. A required
 * field left empty, or a value of the wrong kind, throws a message naming the attribute.
 * `skip`: attributes fixed elsewhere (a template's), not read from the form.
 */
export function attributeValues(
  attributes: SchemaAttribute[],
  values: Record<string, FieldValue | undefined>,
  options: { skip?: Set<string>; partial?: boolean } = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const problems: string[] = []
  for (const a of attributes) {
    if (options.skip?.has(a.name)) continue
    const raw = values[a.name]
    const kind = inputKind(a.data_type).type
    if (kind === 'checkbox') {
      // An issued checkbox always has a value, unticked is false; a template fixes only one that was touched.
      if (!options.partial || typeof raw === 'boolean') out[a.name] = raw === true
      continue
    }
    const text = typeof raw === 'string' ? raw.trim() : ''
    if (!text) {
      if (a.required && !options.partial) problems.push(`${a.name} is required`)
      continue
    }
    if (kind === 'number') {
      const n = Number(text)
      if (!Number.isFinite(n)) problems.push(`${a.name} must be a number`)
      else out[a.name] = n
    } else if (kind === 'date') {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) problems.push(`${a.name} must be a date (YYYY-MM-DD)`)
      else out[a.name] = text
    } else if (kind === 'json') {
      try {
        out[a.name] = JSON.parse(text)
      } catch {
        problems.push(`${a.name} is not valid JSON`)
      }
    } else {
      out[a.name] = text
    }
  }
  if (problems.length) throw new Error(`Check the attributes: ${problems.join('; ')}`)
  return out
}

/** A stored attribute value back to its form field (a template's fixed values shown in the form). */
export function fieldValue(dataType: string, value: unknown): FieldValue {
  if (inputKind(dataType).type === 'checkbox') return value === true
  if (value === undefined || value === null) return ''
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

export function parseJsonObject(text: string, field: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text.trim() || '{}')
  } catch {
    throw new Error(`${field}: not valid JSON`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${field}: a JSON object is expected, e.g. {"gpa": 3.8}`)
  return value as Record<string, unknown>
}

export type Operator = '>=' | '>' | '<=' | '<'
export const OPERATORS: Operator[] = ['>=', '>', '<=', '<']

/** A predicate row of the verifier's form: numbers stay numbers, dates and other text stay text. */
export function predicateValue(raw: string): number | string {
  const text = raw.trim()
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text
}

/** `gpa >= 3` lines to predicates; numbers stay numbers, dates and other text stay text. */
export function parsePredicateLines(
  text: string,
): Array<{ attribute: string; operator: Operator; value: number | string }> {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const match = /^([A-Za-z_]\w*)\s*(>=|<=|>|<)\s*(\S+)$/.exec(line)
      if (!match) throw new Error(`Predicates: "${line}" is not "attribute operator value" (operators >=, >, <=, <)`)
      return { attribute: match[1]!, operator: match[2] as Operator, value: predicateValue(match[3]!) }
    })
}

export function parseList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
}

/** An attribute name as a label: `given_name` → `Given name`. */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** A DID short enough for a table cell: method and the ends of its identifier (the whole DID goes in a title). */
export function shortDid(did: string): string {
  const match = /^(did:[a-z0-9]+:)(.+)$/.exec(did)
  if (!match) return did
  const id = match[2]!
  return id.length <= 16 ? did : `${match[1]}${id.slice(0, 6)}…${id.slice(-4)}`
}

/** A `datetime-local` field's value (local time, no zone) to an ISO instant; empty stays undefined. */
export function localDateTimeToIso(value: string): string | undefined {
  if (!value) return undefined
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) throw new Error('Expiry: not a valid date and time')
  if (date.getTime() <= Date.now()) throw new Error('Expiry: choose a time in the future')
  return date.toISOString()
}

/** The credential formats an issuer chooses from (docs/formats.md); the first three are also OpenID4VCI offers. */
export const FORMATS: Array<{ id: string; label: string; oid4vci: boolean }> = [
  { id: 'dc+sd-jwt', label: 'SD-JWT VC (selective disclosure)', oid4vci: true },
  { id: 'jwt_vc_json', label: 'JWT-VC (VC Data Model 1.1)', oid4vci: true },
  { id: 'eddsa-rdfc-2022', label: 'Data Integrity (VC Data Model 2.0, EdDSA)', oid4vci: true },
  { id: 'vc+jwt', label: 'VC-JOSE (VC Data Model 2.0 JWT; no OpenID4VCI offer)', oid4vci: false },
]
