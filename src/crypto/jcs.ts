import { createHash } from 'node:crypto'
import canonicalizeJson from 'canonicalize'
import { ValidationError } from '../errors.js'

/**
 * RFC 8785 JSON Canonicalization Scheme (via `canonicalize`, by the RFC's co-author): sorted
 * keys by UTF-16 code units (§3.2.3), ECMAScript number serialisation (§3.2.2.3), no
 * insignificant whitespace. Refuses what JSON cannot represent (undefined, non-finite numbers),
 * and, as a ValidationError, text with unpaired surrogates (client input that is not I-JSON).
 */
export function canonicalize(value: unknown): string {
  assertJson(value)
  const text = canonicalizeJson(value)
  if (text === undefined) throw new TypeError('value has no JSON form')
  return text
}

/** `credential_hash` (DESIGN.md): SHA-256 hex of the JCS form of a document. */
export function jcsSha256Hex(value: unknown): string {
  return createHash('sha256').update(canonicalize(value), 'utf8').digest('hex')
}

/** An unpaired UTF-16 surrogate: text that is not Unicode (RFC 7493 §2.1 forbids it in I-JSON). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

function assertJson(value: unknown, path = '$'): void {
  if (typeof value === 'string') {
    // RFC 8785 §3.1 canonicalizes I-JSON only. The text came from a client's JSON (`"\ud800"`
    // parses), so it is their input that is invalid, not a fault of ours.
    if (LONE_SURROGATE.test(value))
      throw new ValidationError(`${path} is not well-formed Unicode text (it holds an unpaired surrogate)`)
    return
  }
  if (value === null || typeof value === 'boolean') return
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${path} is not a finite number`)
    return
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertJson(item, `${path}[${i}]`))
    return
  }
  if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (LONE_SURROGATE.test(key))
        throw new ValidationError(
          `A property name in ${path} is not well-formed Unicode text (it holds an unpaired surrogate)`,
        )
      assertJson(item, `${path}.${key}`)
    }
    return
  }
  throw new TypeError(`${path} is a ${typeof value}, which JSON cannot represent`)
}
