/**
 * Words for ISO/IEC 18013-5 mdocs (`mso_mdoc`): a doctype and its namespaces by name, data
 * elements by readable names, and element values as a person reads them (dates, yes/no, lists,
 * a portrait's image). The wallet view gives elements as JSON: full-date as YYYY-MM-DD, tdate as
 * ISO 8601, bstr as base64url (an issuer's own record may keep the data: URL it was given).
 */

/** Doctypes this wallet names: ISO/IEC 18013-5 §7.1 (mDL) and the EU PID Rulebook §4 (PID). */
const DOCTYPES: Record<string, string> = {
  'org.iso.18013.5.1.mDL': 'Mobile driving licence',
  'eu.europa.ec.eudi.pid.1': 'Person identification data',
}

/** Namespaces by the document they belong to (the PID's namespace is its doctype). */
const NAMESPACES: Record<string, string> = {
  'org.iso.18013.5.1': 'Mobile driving licence',
  'org.iso.18013.5.1.aamva': 'Mobile driving licence (AAMVA)',
  'eu.europa.ec.eudi.pid.1': 'Person identification data',
}

/** Element names that the plain spelling of their identifier reads badly. */
const ELEMENT_NAMES: Record<string, string> = {
  un_distinguishing_sign: 'UN distinguishing sign',
  vehicle_category_code: 'Vehicle category',
  family_name_birth: 'Family name at birth',
  given_name_birth: 'Given name at birth',
  birth_place: 'Place of birth',
  portrait_capture_date: 'Portrait taken on',
  sex: 'Sex (ISO/IEC 5218)',
}

export function doctypeLabel(doctype: string): string | undefined {
  return DOCTYPES[doctype]
}

export function namespaceLabel(namespace: string): string | undefined {
  return NAMESPACES[namespace]
}

/** An element identifier in words, first letter capital (`age_over_18` → Age over 18). */
export function elementLabel(element: string): string {
  const known = ELEMENT_NAMES[element]
  if (known) return known
  const words = element.replace(/[_-]+/g, ' ').trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** An element inside a sentence: lower case unless it starts with an acronym (UN, PID). */
function inSentence(label: string): string {
  return /^[A-Z][A-Z]/.test(label) ? label : label.charAt(0).toLowerCase() + label.slice(1)
}

/**
 * A `[namespace, element]` claim path (OpenID4VP 1.0 §7.2 for mso_mdoc) as "Mobile driving
 * licence: age over 18"; an unknown namespace is named by the doctype's label, else as it is.
 */
export function mdocClaimLabel(path: ReadonlyArray<string | number | null>, doctype?: string): string {
  const [namespace, element] = path
  const document = namespaceLabel(String(namespace)) ?? (doctype && doctypeLabel(doctype)) ?? String(namespace)
  return `${document}: ${inSentence(elementLabel(String(element)))}`
}

/** Whether a claim path names an element of a namespace this wallet knows (an mdoc's path). */
export function isMdocPath(path: ReadonlyArray<string | number | null>): boolean {
  return path.length === 2 && typeof path[0] === 'string' && path[0] in NAMESPACES && typeof path[1] === 'string'
}

function base64Bytes(text: string): Uint8Array | undefined {
  const payload = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
  if (!/^[A-Za-z0-9+/]*$/.test(payload) || payload.length % 4 === 1) return undefined
  try {
    const binary = atob(payload + '='.repeat((4 - (payload.length % 4)) % 4))
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0))
  } catch {
    return undefined
  }
}

const startsWith = (bytes: Uint8Array, magic: number[]) => magic.every((b, i) => bytes[i] === b)

/** The image type of bytes by their signature: what an <img> shows, and JPEG 2000 (ISO/IEC 15444-1), which browsers do not. */
function imageType(bytes: Uint8Array): 'image/jpeg' | 'image/png' | 'jpeg2000' | undefined {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (startsWith(bytes, [0xff, 0x4f, 0xff, 0x51]) || startsWith(bytes, [0, 0, 0, 0x0c, 0x6a, 0x50, 0x20, 0x20]))
    return 'jpeg2000'
  return undefined
}

/** Elements 18013-5 and the PID Rulebook type as bstr: shown as bytes when they hold no image. */
const BYTE_ELEMENTS = new Set(['portrait', 'signature_usual_mark', 'biometric_template_face', 'picture'])

export type Readable =
  | { kind: 'text'; text: string }
  | { kind: 'date'; iso: string; text: string }
  | { kind: 'image'; src: string }
  | { kind: 'list'; items: Readable[] }
  | { kind: 'fields'; fields: Array<{ name: string; label: string; value: Readable }> }

const FULL_DATE = /^\d{4}-\d{2}-\d{2}$/
const TDATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/

function readableString(value: string, element: string | undefined): Readable {
  if (FULL_DATE.test(value)) {
    const date = new Date(`${value}T00:00:00Z`)
    if (!Number.isNaN(date.getTime()))
      // A full-date has no time zone (RFC 8943): read in UTC so it stays the same day everywhere.
      return {
        kind: 'date',
        iso: value,
        text: date.toLocaleDateString(undefined, { timeZone: 'UTC', year: 'numeric', month: 'long', day: 'numeric' }),
      }
  }
  if (TDATE.test(value)) {
    const date = new Date(value)
    if (!Number.isNaN(date.getTime())) return { kind: 'date', iso: value, text: date.toLocaleString() }
  }
  const dataUrl = /^data:[^,;]*(;[^,;]+)*;base64,/.exec(value)
  const bytesElement = element !== undefined && BYTE_ELEMENTS.has(element)
  if (dataUrl || bytesElement || value.length >= 16) {
    const bytes = base64Bytes(dataUrl ? value.slice(dataUrl[0].length).replace(/\s+/g, '') : value)
    if (bytes) {
      const type = imageType(bytes)
      if (type === 'image/jpeg' || type === 'image/png') {
        let binary = ''
        for (const b of bytes) binary += String.fromCharCode(b)
        return { kind: 'image', src: `data:${type};base64,${btoa(binary)}` }
      }
      if (type === 'jpeg2000')
        return { kind: 'text', text: `A JPEG 2000 image of ${bytes.length} bytes (this browser cannot show it)` }
      if (dataUrl || bytesElement) return { kind: 'text', text: `${bytes.length} bytes of data` }
    }
  }
  return { kind: 'text', text: value }
}

/**
 * A full-date (RFC 8943 tag 1004) as the wallet view may give it: `{ date: "YYYY-MM-DDT00:00:00Z" }`
 * (a date object serialised by its fields); its day in UTC, where a full-date has no time zone.
 */
function wrappedFullDate(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined
  const keys = Object.keys(value)
  const date = (value as { date?: unknown }).date
  if (keys.length !== 1 || typeof date !== 'string') return undefined
  const match = /^(\d{4}-\d{2}-\d{2})(T00:00(:00(\.0+)?)?Z)?$/.exec(date)
  return match?.[1]
}

/** A data element's value as a person reads it; `element` is its identifier (some are bytes by definition). */
export function readableValue(value: unknown, element?: string): Readable {
  if (value === undefined) return { kind: 'text', text: '(not shown)' }
  if (value === null) return { kind: 'text', text: '(empty)' }
  if (typeof value === 'boolean') return { kind: 'text', text: value ? 'Yes' : 'No' }
  if (typeof value === 'string') return readableString(value, element)
  if (Array.isArray(value)) return { kind: 'list', items: value.map((v) => readableValue(v)) }
  const day = wrappedFullDate(value)
  if (day) return readableString(day, element)
  if (typeof value === 'object')
    return {
      kind: 'fields',
      fields: Object.entries(value as Record<string, unknown>).map(([name, v]) => ({
        name,
        label: elementLabel(name),
        value: readableValue(v, name),
      })),
    }
  return { kind: 'text', text: String(value) }
}

/** A Readable in one line of text (a summary, an alt text): lists by commas, fields as "name value". */
export function readableText(value: Readable): string {
  switch (value.kind) {
    case 'text':
    case 'date':
      return value.text
    case 'image':
      return 'an image'
    case 'list':
      return value.items.map(readableText).join('; ')
    case 'fields':
      return value.fields.map((f) => `${inSentence(f.label)} ${readableText(f.value)}`).join(', ')
  }
}

/**
 * The doctype of a stored credential when it is an mdoc: its type when that is a known doctype,
 * else read from its IssuerSigned (ISO/IEC 18013-5 §8.3.2.1.2.2, base64url CBOR), whose MSO names
 * its `docType`; undefined for the other formats (a JWT, an SD-JWT, JSON).
 */
export function mdocDoctypeOf(credential: { credential_type: string; jwt: string }): string | undefined {
  const text = credential.jwt.trim()
  if (!text) return DOCTYPES[credential.credential_type] ? credential.credential_type : undefined
  if (/[.~{\s]/.test(text)) return undefined
  const bytes = base64Bytes(text)
  // An IssuerSigned is a CBOR map (major type 5, maybe behind a tag) with the text keys nameSpaces and issuerAuth.
  if (!bytes || bytes[0] === undefined || (bytes[0] >> 5 !== 5 && bytes[0] >> 5 !== 6)) return undefined
  let latin = ''
  for (const b of bytes) latin += String.fromCharCode(b)
  if (!latin.includes('\x6aissuerAuth') || !latin.includes('\x6anameSpaces')) return undefined
  if (DOCTYPES[credential.credential_type]) return credential.credential_type
  // "docType" as a CBOR text key, then its text value: a length in the head (< 24) or in one byte after 0x78.
  const at = latin.indexOf('\x67docType')
  if (at < 0) return credential.credential_type
  const head = bytes[at + 8] ?? 0
  const [length, start] =
    head >= 0x60 && head < 0x78 ? [head - 0x60, at + 9] : head === 0x78 ? [bytes[at + 9] ?? 0, at + 10] : [0, 0]
  if (!length) return credential.credential_type
  return new TextDecoder().decode(bytes.slice(start, start + length))
}

/** A stored credential's name for a person: a known mdoc doctype's label, else its type. */
export function credentialTitle(credential: { credential_type: string; jwt: string }): string {
  const doctype = mdocDoctypeOf(credential)
  return (doctype && doctypeLabel(doctype)) ?? credential.credential_type
}
