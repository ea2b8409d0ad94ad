import { decodeCompactJws, jwsNestingProblem, type DecodedJws } from '../../../crypto/jws.js'
import { JSON_LIMITS, nestingPastLimit } from '../../../json-limits.js'
import { JwsRejected, JwtClaimRejected, verifyDidJws, type VerifiedJws } from '../../did/did-jws.js'
import { normalizeDid } from '../../did/did-normalize.js'
import type { StatusState } from '../../status-list/status-check.js'
import type { CredentialProblem, ReadCredential, VerifyContext } from './credential-format.js'

/**
 * The checks every JWT-secured credential format shares: the signature by an assertion key of the
 * DID in `kid` (verifyDidJws, jose), the lifetime jose reads from exp/nbf (reported as problems,
 * not thrown, so every problem is told), the subject bound to the holder, and the status entry.
 */
export async function verifiedJwt(
  jwt: string,
  ctx: VerifyContext,
  problems: CredentialProblem[],
  decoded = decodeCompactJws(jwt),
): Promise<VerifiedJws | undefined> {
  if (!decoded) {
    problems.push({
      reason: 'unreadable',
      message: jwsNestingProblem(jwt) ?? 'it is not a JWT (three base64url parts: header.payload.signature)',
    })
    return undefined
  }
  try {
    return await verifyDidJws(ctx.resolver, jwt, 'assertionMethod', {
      currentDate: ctx.now,
      clockTolerance: ctx.skewSeconds,
    })
  } catch (error) {
    if (error instanceof JwtClaimRejected) {
      const { claim } = error
      if (claim === 'exp') problems.push({ reason: 'expired', message: 'it has expired' })
      else if (claim === 'nbf') problems.push({ reason: 'not_yet_valid', message: 'it is not valid yet' })
      else problems.push({ reason: 'malformed', message: `its ${error.message}` })
      return error.jws
    }
    if (error instanceof JwsRejected) {
      problems.push({ reason: 'signature', message: `issuer signature: ${error.message}` })
      return undefined
    }
    throw error
  }
}

/**
 * A compact JWS's protected header alone, unverified: what recognizing a JOSE format needs, without
 * reading its payload. Undefined when it is not a JSON object or nests past the limit.
 */
export function jwsHeaderOf(jws: string): Record<string, unknown> | undefined {
  const parts = jws.split('.')
  if (parts.length !== 3) return undefined
  const text = Buffer.from(parts[0]!, 'base64url').toString('utf8')
  if (nestingPastLimit(text, JSON_LIMITS.documentDepth)) return undefined
  try {
    const header: unknown = JSON.parse(text)
    return isObject(header) ? header : undefined
  } catch {
    return undefined
  }
}

/** A format's `parse` of a compact JWS: its header and payload, decoded once. */
export const parsedJws = (jws: unknown): { jws?: DecodedJws } => ({
  jws: typeof jws === 'string' ? decodeCompactJws(jws) : undefined,
})

/** Holder binding: `sub` and the subject's `id`, whichever are present, must both be the holder. */
export function subjectProblems(subjects: unknown[], holderDid: string | undefined): CredentialProblem[] {
  if (holderDid === undefined) return []
  const named = subjects.filter((s) => s !== undefined && s !== null)
  if (named.length === 0)
    return [
      {
        reason: 'subject',
        message: 'it names no subject (sub or credentialSubject.id): only credentials issued to the holder count',
      },
    ]
  const other = named.find((s) => typeof s !== 'string' || !sameDid(s, holderDid))
  return other === undefined
    ? []
    : [{ reason: 'subject', message: `it was issued to ${String(other)}, not to the holder ${holderDid}` }]
}

/** A date the JWT's own claims do not carry (VCDM `validUntil`/`expirationDate`, `validFrom`/`issuanceDate`), checked alike. */
export function datedProblems(
  expiresAt: number | undefined,
  validFrom: number | undefined,
  ctx: Pick<VerifyContext, 'now' | 'skewSeconds'>,
): CredentialProblem[] {
  const now = Math.floor(ctx.now.getTime() / 1000)
  const problems: CredentialProblem[] = []
  if (expiresAt !== undefined && expiresAt <= now - ctx.skewSeconds)
    problems.push({ reason: 'expired', message: 'it has expired' })
  if (validFrom !== undefined && validFrom > now + ctx.skewSeconds)
    problems.push({ reason: 'not_yet_valid', message: 'it is not valid yet' })
  return problems
}

/** What the issuer's status list says (Bitstring Status List §3.2, or a Token Status List), as problems. */
export function statusProblems(status: StatusState): { problems: CredentialProblem[]; revoked: boolean } {
  if (status.state === 'revoked')
    return { problems: [{ reason: 'revoked', message: 'it has been revoked by its issuer' }], revoked: true }
  if (status.state === 'unknown')
    return {
      problems: [{ reason: 'status_unknown', message: `its status could not be checked: ${status.reason}` }],
      revoked: false,
    }
  return { problems: [], revoked: false }
}

/**
 * A W3C credential document (the `vc` claim of a VCDM 1.1 JWT, or a VCDM 2.0 payload) as the
 * formats read it back, once its checks are done: the subject's claims without its `id`, the
 * dates as given (seconds), the schema ids the format reads from `credentialSchema`.
 */
export function readW3cCredential(
  doc: Record<string, unknown>,
  read: {
    signer: string
    id: string | undefined
    sub: unknown
    issuedAt: number | undefined
    expiresAt: number | undefined
    schemaIds: string[]
    revoked: boolean
  },
): ReadCredential {
  const { id: subjectId, ...attributes } = doc.credentialSubject as Record<string, unknown>
  return {
    id: read.id,
    issuer: read.signer,
    issuerName: isObject(doc.issuer) && typeof doc.issuer.name === 'string' ? doc.issuer.name : undefined,
    types: stringsOf(doc.type),
    schemaIds: read.schemaIds,
    attributes,
    subject: typeof subjectId === 'string' ? subjectId : typeof read.sub === 'string' ? read.sub : undefined,
    issuedAt: read.issuedAt === undefined ? undefined : new Date(read.issuedAt * 1000),
    expiresAt: read.expiresAt === undefined ? undefined : new Date(read.expiresAt * 1000),
    extensions: stringsOf(doc.extensions),
    document: doc,
    revoked: read.revoked,
  }
}

export function dateSeconds(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000)
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export const stringsOf = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.filter((t): t is string => typeof t === 'string')
    : typeof value === 'string'
      ? [value]
      : []

function sameDid(value: string, holderDid: string): boolean {
  try {
    return normalizeDid(value) === holderDid
  } catch {
    return false
  }
}
