import { createHash } from 'node:crypto'
import canonicalizeJson from 'canonicalize'

/**
 * RFC 8785 JSON Canonicalization Scheme (via `canonicalize`, by the RFC's co-author): sorted
 * keys by UTF-16 code units (§3.2.3), ECMAScript number serialisation (§3.2.2.3), no
 * insignificant whitespace. Refuses what JSON cannot represent (undefined, non-finite numbers).
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

function assertJson(value: unknown, path = '$'): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${path} is not a finite number`)
    return
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertJson(item, `${path}[${i}]`))
    return
  }
  if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) assertJson(item, `${path}.${key}`)
    return
  }
  throw new TypeError(`${path} is a ${typeof value}, which JSON cannot represent`)
}
