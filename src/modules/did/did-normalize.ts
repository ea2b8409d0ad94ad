/**
 * "Compatible DID formats are normalized" (interface spec): one canonical string per DID, so
 * lookups and ownership checks compare like with like.
 */
import { ValidationError } from '../../errors.js'
import { didMethods } from './methods/registered-methods.js'

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

/** A DID whose own separators are percent-encoded: a path segment's encoding left on it, or two. */
const ENCODED_DID = /^did(?::[a-z0-9]+)?%(?:25)*3a/i

/**
 * Returns the DID in canonical form, or throws ValidationError:
 * - trims whitespace;
 * - drops the DID URL parts after the DID (path, query, fragment; DID Core §3.2);
 * - lower-cases the scheme and method name (method-specific ids are case-sensitive: a did:key
 *   is base58, so it is kept as is);
 * - applies the checks its method adds to DID Core's syntax (DidMethod.checkSyntax); a method
 *   without them, or one not registered, allows no percent-encoding at all: a `%` there is an
 *   encoding left on from a URL.
 * Nothing is percent-decoded here: a DID from a URL path was decoded once, by
 * didFromPathSegment, and one still encoded (`did%3Akey%3A...`, `%25`) was encoded twice.
 */
export function normalizeDid(input: string): string {
  let did = input.trim()
  if (did.length > MAX_DID_LENGTH) {
    throw new ValidationError(`DID is longer than ${MAX_DID_LENGTH} characters`)
  }
  if (ENCODED_DID.test(did)) {
    throw new ValidationError(
      `DID "${preview(input)}" is still percent-encoded: send a DID as is, or in a URL path encoded exactly once`,
    )
  }
  const end = did.search(/[/?#]/)
  if (end >= 0) did = did.slice(0, end)
  const head = /^did:([a-z0-9]+):/i.exec(did)
  if (head?.[1] !== undefined) did = `did:${head[1].toLowerCase()}:${did.slice(head[0].length)}`
  const syntax = DID_SYNTAX.exec(did)
  if (!syntax) {
    throw new ValidationError(
      `Malformed DID "${preview(input)}": expected did:<method>:<method-specific-id> (W3C DID Core §3.1)`,
    )
  }
  const method = didMethods.get(syntax[1]!)
  if (method?.checkSyntax) method.checkSyntax(did)
  else if (did.includes('%')) {
    throw new ValidationError(
      `DID "${preview(input)}" has percent-encoding, which did:${syntax[1]} identifiers do not use`,
    )
  }
  return did
}

/**
 * A DID from one URL path segment, percent-decoded exactly once (RFC 3986 §2.4). A segment that
 * keeps its colons holds the DID as is (`did:web:example.com%3A8443`): its `%3A` is part of the
 * method-specific id (an encoder that leaves `:` alone never writes `%3A`), so only its other
 * escapes are decoded. A segment without colons is the whole DID encoded (`did%3Aweb%3Aexample.com%253A8443`).
 */
export function didFromPathSegment(segment: string): string {
  const raw = segment.includes(':') ? segment.replace(/%3A/gi, (colon) => `%25${colon.slice(1)}`) : segment
  try {
    return decodeURIComponent(raw)
  } catch {
    throw new ValidationError('The DID in the path is not valid percent-encoding')
  }
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
