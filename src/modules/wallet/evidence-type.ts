import { JSON_LIMITS, nestingPastLimit } from '../../json-limits.js'
import { sniffImage } from '../auth/image-type.js'

const SIGNED_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp']

/**
 * Whether the bytes of an evidence file are what the upload declares, where the format can be
 * told from its content (PDF, PNG, JPEG, GIF, WebP by signature; text as UTF-8, JSON by parsing,
 * and only JSON within the nesting limit of any document the service reads).
 * 'unknown': a format this service cannot check, so the declared type is taken as given.
 */
export function sniffEvidence(bytes: Uint8Array, declared: string): 'match' | 'mismatch' | 'unknown' {
  const image = sniffImage(bytes)
  const pdf = bytes.length >= 5 && Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-'
  const actual = image ?? (pdf ? 'application/pdf' : undefined)
  if (actual) return actual === declared ? 'match' : 'mismatch'
  // A declared binary format whose signature is missing is not that format.
  if (SIGNED_TYPES.includes(declared)) return 'mismatch'
  if (declared === 'application/json') return isJson(bytes) ? 'match' : 'mismatch'
  if (declared.startsWith('text/')) return isText(bytes) ? 'match' : 'mismatch'
  return 'unknown'
}

function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}

function isJson(bytes: Uint8Array): boolean {
  if (!isText(bytes)) return false
  const text = Buffer.from(bytes).toString('utf8')
  // Parsing megabytes of nested brackets holds the event loop for seconds; the scan stops early.
  if (nestingPastLimit(text, JSON_LIMITS.documentDepth)) return false
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
