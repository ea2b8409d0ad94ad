import { createHash } from 'node:crypto'
import { canonicalize } from '../../crypto/jcs.js'
import { ValidationError } from '../../errors.js'

/** Longest key taken: the draft leaves the length to the resource; a UUID is 36. */
export const KEY_MAX_LENGTH = 255

// RFC 8941 §3.3.3 sf-string: printable ASCII with `\"` and `\\` the only escapes.
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/
// Unquoted, taken as well since clients commonly send a bare UUID: RFC 8941 §3.3.4 token
// characters (tchar, ":" and "/"), any of them first so that a UUID starting with a digit passes.
const BARE_KEY = /^[!#$%&'*+\-.^_`|~0-9A-Za-z:/]+$/

/**
 * The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header §2: an
 * RFC 8941 String) as its text; undefined when absent. Anything else is the client's error.
 */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined
  if (Array.isArray(header))
    throw new ValidationError('Idempotency-Key must be sent once', { details: { header: 'Idempotency-Key' } })
  const text = header.trim()
  const quoted = SF_STRING.exec(text)
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : BARE_KEY.test(text) ? text : undefined
  if (key === undefined) {
    throw new ValidationError(
      'Idempotency-Key must be a Structured Field string of printable ASCII, e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324"',
      { details: { header: 'Idempotency-Key' } },
    )
  }
  if (key.length < 1 || key.length > KEY_MAX_LENGTH) {
    throw new ValidationError(`Idempotency-Key must be 1 to ${KEY_MAX_LENGTH} characters`, {
      details: { header: 'Idempotency-Key', max_length: KEY_MAX_LENGTH },
    })
  }
  return key
}

/** What makes two requests "the same" (draft §2.2): SHA-256 over method, route and the RFC 8785 form of the body. */
export function requestFingerprint(method: string, route: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${route}\n${canonicalize(body ?? null)}`, 'utf8')
    .digest('hex')
}
