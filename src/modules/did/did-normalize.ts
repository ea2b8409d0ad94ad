/**
 * "Compatible DID formats are normalized" (interface spec): one canonical string per DID, so
 * lookups and ownership checks compare like with like.
 */
import { ValidationError } from '../../errors.js'

/**
 * W3C DID Core §3.1 ABNF:
 *   did                = "did:" method-name ":" method-specific-id
 *   method-name        = 1*method-char            ; method-char = %x61-7A / DIGIT
 *   method-specific-id = *( *idchar ":" ) 1*idchar ; idchar = ALPHA / DIGIT / "." / "-" / "_" / pct-encoded
 */
const IDCHAR = '(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})'
const DID_SYNTAX = new RegExp(`^did:([a-z0-9]+):((?:${IDCHAR}*:)*${IDCHAR}+)$`)

/** Long enough for an RSA-4096 did:key (~750 chars), short enough to bound the work. */
const MAX_DID_LENGTH = 2048

/** A DID whose colons were percent-encoded as a URL path segment, once or twice (`%253A`). */
const ENCODED_PREFIX = /^did(?::[a-z0-9]+)?%(?:25)?3a/i

/**
 * Returns the DID in canonical form, or throws ValidationError:
 * - trims whitespace;
 * - percent-decodes a DID sent as an encoded path segment (`did%3Akey%3Az6Mk...`), decoding
 *   only while the `did:` / method separators themselves are encoded, so `%3A` inside a
 *   method-specific id (did:web ports) survives;
 * - drops the DID URL parts after the DID (path, query, fragment; DID Core §3.2);
 * - lower-cases the scheme and method name (method-specific ids are case-sensitive: a did:key
 *   is base58, so it is kept as is).
 */
export function normalizeDid(input: string): string {
  let did = input.trim()
  if (did.length > 3 * MAX_DID_LENGTH) {
    throw new ValidationError(`DID is longer than ${MAX_DID_LENGTH} characters`)
  }
  for (let round = 0; round < 3 && ENCODED_PREFIX.test(did); round++) {
    try {
      did = decodeURIComponent(did)
    } catch {
      throw new ValidationError('DID has invalid percent-encoding')
    }
  }
  if (did.length > MAX_DID_LENGTH) {
    throw new ValidationError(`DID is longer than ${MAX_DID_LENGTH} characters`)
  }
  const end = did.search(/[/?#]/)
  if (end >= 0) did = did.slice(0, end)
  const head = /^did:([a-z0-9]+):/i.exec(did)
  if (head?.[1] !== undefined) did = `did:${head[1].toLowerCase()}:${did.slice(head[0].length)}`
  if (!DID_SYNTAX.test(did)) {
    throw new ValidationError(
      `Malformed DID "${preview(input)}": expected did:<method>:<method-specific-id> (W3C DID Core §3.1)`,
    )
  }
  return did
}

/** The method name of a DID, e.g. "key" for did:key:z6Mk... */
export function didMethod(did: string): string {
  const normalized = normalizeDid(did)
  return normalized.slice(4, normalized.indexOf(':', 4))
}

function preview(value: string): string {
  const trimmed = value.trim()
  return trimmed.length > 80 ? `${trimmed.slice(0, 77)}...` : trimmed
}
