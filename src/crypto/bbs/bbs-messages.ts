import { createHash } from 'node:crypto'
import { canonicalize } from '../jcs.js'

/**
 * How a credential becomes the ordered list of BBS messages, shared by the issuer (signing), the
 * holder (proving) and any verifier (re-encoding revealed values and predicate bounds). Pure: no
 * WebAssembly, so request handlers may import it.
 */
export type AttributeDataType = 'string' | 'number' | 'boolean' | 'date' | 'email' | 'url' | 'file' | 'object' | 'array'

/**
 * One signed message: `integer` ones are encoded as numbers so range proofs work on them (Dock's
 * encodePositiveNumberForSigning: the scalar is the integer itself); `text` ones are hashed to a
 * scalar (UTF-8 bytes), so only equality with a revealed value can be shown.
 */
export interface BbsMessage {
  name: string
  encoding: 'integer' | 'text'
  value: string | number
}

export interface AnonCredentialContent {
  /**
   * `issued_at` / `expires_at`: RFC 3339 date-times. `status`: the id of the credential's W3C
   * Bitstring Status List entry (`<statusListCredential>#<statusListIndex>`), so a derived proof
   * can disclose it and a verifier check revocation from public data.
   */
  meta: {
    id: string
    type: string
    issuer: string
    subject: string
    schema_id: string
    issued_at: string
    expires_at?: string
    status?: string
  }
  attributes: Record<string, unknown>
  /** data_type per attribute name, from the schema: every schema attribute gets a slot. */
  types: Record<string, AttributeDataType>
}

/**
 * Names the layout below, so a stored credential or a proof can say which one it was signed under.
 * v2 added `@status` and `@layout`: without them a derived proof could neither show
 * non-revocation nor bind attribute names to message indexes (BBS signs positions, not names).
 */
export const BBS_MESSAGE_LAYOUT = 'credential-service/bbs-messages/v2'

/** Meta slots come first, in this order, so their indexes never depend on the schema. */
export const META_MESSAGES = [
  '@id',
  '@type',
  '@issuer',
  '@subject',
  '@schema',
  '@issued_at',
  '@expires_at',
  '@status',
  '@layout',
] as const

/**
 * Text value of an absent optional attribute (or of a missing expiry). It holds a NUL, which no
 * attribute value may contain in that exact form: credentialMessages refuses it as a value, so
 * "absent" and "present" can never sign the same message.
 */
export const ABSENT = '\u0000absent'

/**
 * Numbers: fixed point with NUMBER_DECIMALS decimals (enough for money and most measures), then
 * shifted by NUMBER_OFFSET so negatives become non-negative while order is kept:
 * enc(v) = v·10^4 + 2^49, for |v·10^4| < 2^49 (|v| < about 5.6·10^10). The result stays below 2^50:
 * a safe integer (what encodePositiveNumberForSigning and the bound-check statements accept),
 * leaving headroom so `maxExclusive = enc(max) + 1` is still safe, and well inside
 * Bulletproofs++'s default 64-bit range.
 */
export const NUMBER_DECIMALS = 4
export const NUMBER_OFFSET = 2 ** 49
const NUMBER_SCALE = 10 ** NUMBER_DECIMALS

/**
 * Dates (YYYY-MM-DD, RFC 3339 full-date): days since 1970-01-01 as DESIGN.md states them, plus
 * the 719,162 days from 0001-01-01 (proleptic Gregorian, as ECMAScript dates count), so every
 * date from year 1 to 9999 encodes to 0..3,652,058 in order.
 */
export const DATE_OFFSET_DAYS = 719_162
const DAY_MS = 86_400_000

/**
 * The whole encodable span per integer type: a predicate with one open side (`age >= 18`) is the
 * bound check `enc(18) <= m < ENCODED_RANGE.number.maxExclusive`.
 */
export const ENCODED_RANGE = {
  number: { min: 0, maxExclusive: 2 * NUMBER_OFFSET },
  // 9999-12-31 encodes to 3,652,058.
  date: { min: 0, maxExclusive: 3_652_059 },
} as const

const RFC3339_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

/**
 * Deterministic order: the meta messages (fixed order), then every schema attribute sorted by
 * name in UTF-16 code-unit order (as RFC 8785 §3.2.3 sorts keys; independent of the locale).
 * Absent optional attributes take their slot as ABSENT, so the layout depends only on the schema.
 */
export function credentialMessages(content: AnonCredentialContent): BbsMessage[] {
  const { meta } = content
  for (const name of Object.keys(content.attributes)) {
    if (!Object.hasOwn(content.types, name)) throw new RangeError(`attribute "${name}" is not in the schema`)
  }
  // `@` names are the meta slots': an attribute named so would make messageIndex ambiguous.
  for (const name of Object.keys(content.types))
    if (name.startsWith('@')) throw new RangeError(`attribute name "${name}" is reserved`)
  const messages: BbsMessage[] = [
    text('@id', meta.id),
    text('@type', meta.type),
    text('@issuer', meta.issuer),
    text('@subject', meta.subject),
    text('@schema', meta.schema_id),
    integer('@issued_at', encodeTimestamp(meta.issued_at)),
    meta.expires_at === undefined
      ? { name: '@expires_at', encoding: 'text', value: ABSENT }
      : integer('@expires_at', encodeTimestamp(meta.expires_at)),
    meta.status === undefined ? { name: '@status', encoding: 'text', value: ABSENT } : text('@status', meta.status),
    text('@layout', layoutDigest(attributeLayout(content.types))),
  ]
  for (const name of attributeNames(content))
    messages.push(attributeMessage(name, content.types[name]!, content.attributes[name]))
  return messages
}

/** The schema attributes in message order with their data types: what `@layout` signs. */
export function attributeLayout(types: Record<string, AttributeDataType>): Array<[string, AttributeDataType]> {
  return attributeNames({ types }).map((name) => [name, types[name]!])
}

/**
 * `@layout`: SHA-256 (base64url) of the RFC 8785 form of [[name, data_type], ...] in message
 * order. A proof carries the layout in clear and reveals this message, so a verifier knows which
 * attribute (and encoding) each index holds from the issuer's signature, not the holder's word.
 */
export function layoutDigest(layout: Array<[string, string]>): string {
  return createHash('sha256').update(canonicalize(layout)).digest('base64url')
}

/** Index of a named message in the layout of a credential of this schema. */
export function messageIndex(content: Pick<AnonCredentialContent, 'types'>, name: string): number {
  const meta = (META_MESSAGES as readonly string[]).indexOf(name)
  if (meta >= 0) return meta
  const position = attributeNames(content).indexOf(name)
  if (position < 0) throw new RangeError(`"${name}" is not an attribute of this credential`)
  return META_MESSAGES.length + position
}

/**
 * The integer a number or date attribute, or a predicate bound on one, maps to: `value >= 18`
 * becomes `encoded >= encodeIntegerValue('number', 18)`. Throws RangeError when the value cannot
 * be encoded (wrong type, out of range, too many decimals, not a calendar date).
 */
export function encodeIntegerValue(dataType: 'number' | 'date', value: number | string): number {
  return dataType === 'date' ? encodeDate(value) : encodeNumber(value)
}

/**
 * Issue and expiry times: whole seconds since 1970 (RFC 7519 NumericDate, like the JWT-VC's
 * `iat`/`exp`), so "not expired at the verifier's clock" is a bound check at one-second grain.
 */
export function encodeTimestamp(iso: string): number {
  const ms = RFC3339_DATE_TIME.test(iso) ? Date.parse(iso) : Number.NaN
  if (Number.isNaN(ms) || ms < 0) throw new RangeError(`not an RFC 3339 date-time from 1970 on: ${iso}`)
  return Math.floor(ms / 1000)
}

function encodeNumber(value: number | string): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new RangeError(`not a finite number: ${String(value)}`)
  if (decimalsOf(value) > NUMBER_DECIMALS)
    throw new RangeError(`numbers are signed with at most ${NUMBER_DECIMALS} decimals: ${value}`)
  // Exact: v has at most 4 decimals and |v·10^4| < 2^49, so the float product is within 1/8 of
  // the true integer (two roundings of at most 2^-53 relative each) and rounding recovers it.
  const scaled = Math.round(value * NUMBER_SCALE)
  if (Math.abs(scaled) >= NUMBER_OFFSET)
    throw new RangeError(`number out of range (|n| < ${NUMBER_OFFSET / NUMBER_SCALE}): ${value}`)
  return scaled + NUMBER_OFFSET
}

/**
 * Decimal places of the number as written: ECMAScript's Number::toString gives the shortest
 * decimal that round-trips (the form RFC 8785 §3.2.2.3 serialises), e.g. 0.1 → "0.1", 1e-7 → "1e-7".
 */
function decimalsOf(value: number): number {
  const [mantissa = '', exponent = '0'] = String(value).split('e')
  const fraction = mantissa.split('.')[1] ?? ''
  return Math.max(0, fraction.length - Number(exponent))
}

function encodeDate(value: number | string): number {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw new RangeError(`date must be YYYY-MM-DD: ${String(value)}`)
  const ms = Date.parse(`${value}T00:00:00Z`)
  // Date.parse rolls 2001-02-30 over to March: the round trip catches dates not on the calendar.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
    throw new RangeError(`not a calendar date: ${value}`)
  const encoded = Math.floor(ms / DAY_MS) + DATE_OFFSET_DAYS
  if (encoded < 0) throw new RangeError(`date before year 1: ${value}`)
  return encoded
}

/** The message one attribute value signs as (absent: the ABSENT marker); RangeError when it does not fit its type. */
export function attributeMessage(name: string, type: AttributeDataType, value: unknown): BbsMessage {
  if (value === undefined || value === null) return { name, encoding: 'text', value: ABSENT }
  const wrong = (expected: string) => new RangeError(`attribute "${name}" (${type}) must be ${expected}`)
  switch (type) {
    case 'number':
    case 'date':
      if (typeof value !== 'number' && typeof value !== 'string')
        throw wrong(type === 'date' ? 'a YYYY-MM-DD string' : 'a number')
      try {
        return integer(name, encodeIntegerValue(type, value))
      } catch (error) {
        throw new RangeError(`attribute "${name}": ${(error as Error).message}`, { cause: error })
      }
    case 'boolean':
      if (typeof value !== 'boolean') throw wrong('a boolean')
      return text(name, value ? 'true' : 'false')
    case 'object':
      if (typeof value !== 'object' || Array.isArray(value)) throw wrong('an object')
      return text(name, json(name, value))
    case 'array':
      if (!Array.isArray(value)) throw wrong('an array')
      return text(name, json(name, value))
    case 'string':
    case 'email':
    case 'url':
    case 'file':
      if (typeof value !== 'string') throw wrong('a string')
      return text(name, value)
    default:
      throw new RangeError(`attribute "${name}" has an unknown data type ${String(type)}`)
  }
}

function json(name: string, value: unknown): string {
  try {
    return canonicalize(value)
  } catch (error) {
    throw new RangeError(`attribute "${name}" has no JSON form: ${(error as Error).message}`, { cause: error })
  }
}

function text(name: string, value: string): BbsMessage {
  if (value === ABSENT) throw new RangeError(`"${name}" holds the reserved absent marker`)
  return { name, encoding: 'text', value }
}

const integer = (name: string, value: number): BbsMessage => ({ name, encoding: 'integer', value })

const attributeNames = (content: Pick<AnonCredentialContent, 'types'>): string[] =>
  Object.keys(content.types).sort(byCodeUnits)
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
