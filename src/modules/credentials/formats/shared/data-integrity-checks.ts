import type { VerifyResult } from '@digitalbazaar/vc'
import type { CredentialProblem, ProblemReason } from '../credential-format.js'
import { JSON_LIMITS, nestingPastLimit } from '../../../../json-limits.js'
import { isObject } from '../jwt-checks.js'
import { DocumentRefused } from './document-loader.js'

export const DATA_INTEGRITY_PROOF = 'DataIntegrityProof'

/**
 * A secured document as it travels: the object itself (inside a VP's `verifiableCredential`), or
 * its JSON text (the stored credential, a wallet import, a presentation). Undefined for anything
 * else, and for text nesting deeper than JSON_LIMITS.documentDepth (as decodeCompactJws refuses).
 */
export function documentOf(item: unknown): Record<string, unknown> | undefined {
  if (isObject(item)) return item
  if (
    typeof item !== 'string' ||
    !item.trimStart().startsWith('{') ||
    nestingPastLimit(item, JSON_LIMITS.documentDepth)
  )
    return undefined
  try {
    const parsed: unknown = JSON.parse(item)
    return isObject(parsed) ? parsed : undefined
  } catch {
    return undefined
  }
}

/**
 * Most JSON values (objects, arrays, scalars) a document may hold for Data Integrity processing:
 * RDF canonicalization runs on the event loop and bbs-2023's pairings in the worker pool, both
 * growing with the statements, so what a caller sends is bounded before either starts.
 */
export const DATA_INTEGRITY_MAX_VALUES = 1000
export const BBS_2023_MAX_VALUES = 150

/** How many JSON values `value` holds, counting itself; stops counting past `limit`. */
export function jsonValueCount(value: unknown, limit: number): number {
  let count = 0
  const pending: unknown[] = [value]
  while (pending.length && count <= limit) {
    const item = pending.pop()
    count++
    if (Array.isArray(item)) pending.push(...item)
    else if (isObject(item)) pending.push(...Object.values(item))
  }
  return count
}

/** A problem phrase when the document is past `limit` values, else undefined. */
export function sizeProblem(doc: unknown, limit: number): string | undefined {
  return jsonValueCount(doc, limit) > limit
    ? `it holds more than ${limit} JSON values, more than this service canonicalizes for one proof`
    : undefined
}

/** The DIDs of the proofs' verification methods: all the document loader may resolve for them. */
export function proofDids(doc: Record<string, unknown>): Set<string> {
  return new Set(
    proofsOf(doc).flatMap((p) =>
      typeof p.verificationMethod === 'string' && p.verificationMethod.startsWith('did:')
        ? [p.verificationMethod.split('#', 1)[0]!]
        : [],
    ),
  )
}

/** The document's proofs (VC Data Integrity §2.1: one proof or a proof set). */
export function proofsOf(doc: Record<string, unknown> | undefined): Record<string, unknown>[] {
  const proof = doc?.proof
  return (Array.isArray(proof) ? proof : [proof]).filter(isObject)
}

export function hasProof(doc: Record<string, unknown> | undefined, cryptosuites: readonly string[]): boolean {
  return proofsOf(doc).some(
    (p) => p.type === DATA_INTEGRITY_PROOF && typeof p.cryptosuite === 'string' && cryptosuites.includes(p.cryptosuite),
  )
}

/**
 * What JSON-LD processing refused, in words a caller can act on, or undefined for an error that is
 * not the document's fault. jsonld.js reports safe mode (JSON-LD 1.1 API §4.1, which Data
 * Integrity's canonicalization runs in) as `jsonld.ValidationError` with the dropped term, and a
 * context the loader refused as a loading error whose cause is DocumentRefused.
 */
export function jsonLdProblem(error: unknown): string | undefined {
  if (error instanceof DocumentRefused) return error.message
  if (!(error instanceof Error)) return undefined
  const details = (
    error as {
      details?: { cause?: unknown; url?: unknown; event?: { code?: unknown; details?: Record<string, unknown> } }
    }
  ).details
  if (details?.cause instanceof DocumentRefused) return details.cause.message
  if (error.name === 'jsonld.ValidationError' && details?.event) {
    const what = details.event.details ?? {}
    const term = what.property ?? what.type ?? what.value ?? what.relativeIri
    return `its JSON-LD does not hold in safe mode: ${String(details.event.code)}${term === undefined ? '' : ` ${JSON.stringify(term)}`} (a term or type no context defines)`
  }
  if (error.name.startsWith('jsonld.')) return `its JSON-LD cannot be processed: ${error.message}`
  // rdf-canonize bounds its blank-node hashing (RDFC-1.0 §4.8, against poison graphs): a graph past it is the document's to change.
  if (/^Maximum deep iterations exceeded/.test(error.message))
    return `its RDF graph is too complex to canonicalize: ${error.message} (nested blank nodes of the same shape; give them ids or flatten them)`
  return undefined
}

/** Every error a failed verification holds: the library nests per-proof errors in `errors`. */
function errorsOf(result: VerifyResult): unknown[] {
  const top = result.error
  const nested = top?.errors ?? (top ? [top] : [])
  const perProof = (result.results ?? []).map((r) => r.error).filter((e) => e !== undefined)
  return [...new Set([...nested, ...perProof])]
}

/**
 * A failed Data Integrity verification (@digitalbazaar/vc) as problems: `what` names the secured
 * thing ("issuer proof", "presentation proof"). A proof purpose the controller document does not
 * authorize (`assertionMethod`, `authentication`) or an issuer other than the method's controller
 * is `issuer`; unreadable JSON-LD is `malformed`; the rest is the proof's `signature`.
 */
export function proofProblems(
  result: VerifyResult,
  what: string,
  authorizationReason: ProblemReason = 'issuer',
): CredentialProblem[] {
  const problems = errorsOf(result).map((error): CredentialProblem => {
    const jsonLd = jsonLdProblem(error)
    if (jsonLd) return { reason: 'malformed', message: jsonLd }
    const message = error instanceof Error ? error.message : String(error)
    if (/not authorized by controller|must match the verification method controller/.test(message))
      return { reason: authorizationReason, message: `${what}: ${message}` }
    if (/No matching proofs found/.test(message))
      return { reason: 'signature', message: `${what}: it has no DataIntegrityProof of a cryptosuite checked here` }
    return { reason: 'signature', message: `${what}: ${message}` }
  })
  return problems.length ? problems : [{ reason: 'signature', message: `${what}: it does not verify` }]
}
