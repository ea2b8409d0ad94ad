import { DataItem, DateOnly } from '@owf/mdoc'
import { ValidationError } from '../../../../errors.js'

/** The schema attribute types (issuer.schemas DATA_TYPES) as this format reads them. */
export type MdocDataType = 'string' | 'number' | 'boolean' | 'date' | 'email' | 'url' | 'file' | 'object' | 'array'

const FULL_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/
const DATA_URL = /^data:[^,;]*(;[^,;]+)*;base64,/

/**
 * A 'file' value as bytes. Accepted: a data: URL with base64 payload (RFC 2397; the media type is
 * dropped, 18013-5 carries the bare bytes, e.g. a portrait JPEG), or bare base64 / base64url.
 */
function fileBytes(element: string, value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value
  if (typeof value !== 'string') throw new ValidationError(`${element}: a file is a data: URL or base64 text`)
  const payload = value.replace(DATA_URL, '').replace(/\s+/g, '')
  if (value.startsWith('data:') && payload === value)
    throw new ValidationError(`${element}: a data: URL must carry base64 (…;base64,…)`)
  if (!BASE64.test(payload)) throw new ValidationError(`${element}: not base64 or base64url`)
  return new Uint8Array(Buffer.from(payload.replace(/-/g, '+').replace(/_/g, '/'), 'base64'))
}

/**
 * Members of structured elements that 18013-5 types as full-date: driving_privileges' issue_date
 * and expiry_date (§7.2.4). Schema attributes are flat, so the format knows these itself.
 */
export const NESTED_FULL_DATES: Readonly<Record<string, readonly string[]>> = {
  driving_privileges: ['issue_date', 'expiry_date'],
}

/** JSON containers as CBOR: objects become maps with text keys (RFC 8949 §3.1 major type 5). */
function toCborContainer(value: unknown, fullDates: readonly string[] = [], key?: string): unknown {
  if (key !== undefined && fullDates.includes(key) && typeof value === 'string' && FULL_DATE.test(value))
    return new DateOnly(value)
  if (Array.isArray(value)) return value.map((v) => toCborContainer(v, fullDates))
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array))
    return new Map(Object.entries(value).map(([k, v]) => [k, toCborContainer(v, fullDates, k)]))
  return value
}

/**
 * A JSON attribute value as a CBOR data element value (ISO/IEC 18013-5 §7.2.1 types): 'date' is a
 * full-date (tag 1004, RFC 8943), 'file' a bstr, 'object' / 'array' CBOR maps / arrays (nested
 * strings stay tstr but for the NESTED_FULL_DATES members of the element), the rest as given. Throws ValidationError when the value does not fit.
 */
export function toElementValue(element: string, value: unknown, dataType?: MdocDataType): unknown {
  switch (dataType) {
    case 'date':
      if (typeof value !== 'string' || !FULL_DATE.test(value) || Number.isNaN(Date.parse(value)))
        throw new ValidationError(`${element}: a date is YYYY-MM-DD`)
      return new DateOnly(value)
    case 'file':
      return fileBytes(element, value)
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new ValidationError(`${element}: not a number`)
      return value
    case 'boolean':
      if (typeof value !== 'boolean') throw new ValidationError(`${element}: not a boolean`)
      return value
    case 'object':
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw new ValidationError(`${element}: not an object`)
      return toCborContainer(value, NESTED_FULL_DATES[element])
    case 'array':
      if (!Array.isArray(value)) throw new ValidationError(`${element}: not an array`)
      return toCborContainer(value, NESTED_FULL_DATES[element])
    case 'string':
    case 'email':
    case 'url':
      if (typeof value !== 'string') throw new ValidationError(`${element}: not a string`)
      return value
    default:
      return toCborContainer(value, NESTED_FULL_DATES[element])
  }
}

/**
 * A full-date (RFC 8943 tag 1004) as whichever mdoc library decoded it: each registers its own
 * DateOnly class for the tag with cbor-x, and the one loaded last decodes.
 */
const isFullDate = (value: unknown): value is { toISOString(): string } =>
  value instanceof DateOnly || /^\[object _?DateOnly\]$/.test(Object.prototype.toString.call(value))

/**
 * A CBOR data element value as JSON, for display and verification results: full-date →
 * 'YYYY-MM-DD', tdate → ISO 8601 string, bstr → base64url, maps → objects, bigints as numbers
 * when safe (else decimal strings), an embedded data item (tag 24) as its content.
 */
export function fromElementValue(value: unknown): unknown {
  if (isFullDate(value)) return value.toISOString()
  if (value instanceof Date) return value.toISOString().replace(/\.000Z$/, 'Z')
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64url')
  if (value instanceof DataItem) return fromElementValue(value.data)
  if (typeof value === 'bigint')
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(value)
      : value.toString()
  if (Array.isArray(value)) return value.map(fromElementValue)
  if (value instanceof Map)
    return Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), fromElementValue(v)]))
  if (value !== null && typeof value === 'object') {
    // cbor-x decodes unknown tags as Tag { tag, value }: keep the content.
    if ('tag' in value && 'value' in value) return fromElementValue((value as { value: unknown }).value)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromElementValue(v)]))
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value)
  return value
}
