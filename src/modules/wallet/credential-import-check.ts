import { createHash } from 'node:crypto'
import { jcsSha256Hex } from '../../crypto/jcs.js'
import { decodeCompactJws, jwsNestingProblem } from '../../crypto/jws.js'
import { UnprocessableError, ValidationError } from '../../errors.js'
import { freeFormProblem } from '../../json-limits.js'
import { JwsRejected, JwtClaimRejected, verifyDidJws } from '../did/did-jws.js'
import { normalizeDid } from '../did/did-normalize.js'
import type { DidResolver } from '../did/did-resolver.js'
import type { StatusChecker } from '../status-list/status-check.js'

/** Why an import was refused; `details.reason` of the 422 (docs/wallet.md "Import"). */
export type ImportRefusal = 'signature' | 'issuer' | 'subject' | 'expired' | 'not_yet_valid' | 'revoked' | 'status_unknown' | 'malformed'

export interface CheckedCredential {
  jwt: string
  issuerDid: string
  /** `issuer.name` of the document when it gives one. */
  issuerName: string | undefined
  /** `jti`, else a digest of the JWT: what makes two imports the same credential. */
  sourceId: string
  jti: string | undefined
  credentialType: string
  schemaId: string
  attributes: Record<string, unknown>
  credentialHash: string
  issuedAt: Date | null
  expiresAt: Date | null
  extensions: string[]
}

// Clock skew tolerated on nbf/exp, as for presentations.
const SKEW_S = 60

const refuse = (reason: ImportRefusal, message: string) => new UnprocessableError(message, { details: { reason } })

/**
 * The checks a holder's wallet makes before it keeps a JWT-VC from elsewhere, with the same
 * parts a verifier uses (presentation-verifier.ts): the issuer's Ed25519 signature through its
 * DID document (assertionMethod), `iss` = `vc.issuer` = the signing DID, the subject bound to
 * this holder, the validity period, and the status list (a revoked credential is refused).
 */
export async function checkImportedCredential(deps: { resolver: DidResolver; status: StatusChecker; now: Date }, jwt: string, holderDid: string): Promise<CheckedCredential> {
  const decoded = decodeCompactJws(jwt)
  if (!decoded) {
    const tooDeep = jwsNestingProblem(jwt)
    throw new ValidationError(tooDeep ? `credential_jwt is refused: ${tooDeep}` : 'credential_jwt is not a JWT (three base64url parts: header.payload.signature)', { details: { field: 'credential_jwt' } })
  }
  const vc = decoded.payload.vc
  if (!vc || typeof vc !== 'object' || Array.isArray(vc)) throw refuse('malformed', 'The JWT is not a verifiable credential: it has no vc claim')

  // jose checks exp and nbf with the signature; a lifetime problem is reported after the
  // issuer and subject checks, which say more about a wrong credential.
  let verified
  let lifetime: JwtClaimRejected | undefined
  try {
    verified = await verifyDidJws(deps.resolver, jwt, 'assertionMethod', { currentDate: deps.now, clockTolerance: SKEW_S })
  } catch (error) {
    if (error instanceof JwtClaimRejected) [lifetime, verified] = [error, error.jws]
    else if (error instanceof JwsRejected) throw refuse('signature', `The credential's signature does not verify: ${error.message}`)
    else throw error
  }
  const { payload, did: signer } = verified
  const doc = vc as { type?: unknown; issuer?: unknown; credentialSubject?: unknown; credentialStatus?: unknown; credentialSchema?: unknown; issuanceDate?: unknown; expirationDate?: unknown; extensions?: unknown }

  const issuer = typeof doc.issuer === 'string' ? doc.issuer : (doc.issuer as { id?: unknown } | undefined)?.id
  if (payload.iss !== signer || (issuer !== undefined && issuer !== signer)) {
    throw refuse('issuer', `The credential names issuer ${JSON.stringify(issuer ?? payload.iss)} but is signed by ${signer}`)
  }

  const subject = doc.credentialSubject && typeof doc.credentialSubject === 'object' && !Array.isArray(doc.credentialSubject) ? (doc.credentialSubject as Record<string, unknown>) : undefined
  if (!subject) throw refuse('malformed', 'The credential has no credentialSubject object')
  const { id: _subjectId, ...attributes } = subject
  // The claims are kept as the wallet's free-form credential_data: the limits of any free-form value.
  const claimsProblem = freeFormProblem(attributes)
  if (claimsProblem) throw new ValidationError(`credential_jwt is refused: its credentialSubject ${claimsProblem}`, { details: { field: 'credential_jwt' } })
  // Holder binding: `sub` and `credentialSubject.id`, whichever are present, must both be this holder.
  const subjects = [payload.sub, subject.id].filter((s) => s !== undefined)
  if (subjects.length === 0) throw refuse('subject', 'The credential names no subject (sub or credentialSubject.id): only credentials issued to your DID can be imported')
  if (!subjects.every((s) => typeof s === 'string' && sameDid(s, holderDid))) {
    throw refuse('subject', `The credential was issued to ${String(subjects.find((s) => typeof s !== 'string' || !sameDid(s, holderDid)))}, not to your DID ${holderDid}`)
  }

  if (lifetime?.claim === 'exp') throw refuse('expired', 'The credential has expired')
  if (lifetime?.claim === 'nbf') throw refuse('not_yet_valid', 'The credential is not valid yet')
  if (lifetime) throw refuse('malformed', `The credential is malformed: ${lifetime.message}`)
  // jose checked exp and nbf where present; where the JWT leaves them out, the dates they stand
  // for (VC Data Model 1.1, JWT encoding: expirationDate, issuanceDate) are checked alike.
  const now = Math.floor(deps.now.getTime() / 1000)
  const exp = typeof payload.exp === 'number' ? payload.exp : dateSeconds(doc.expirationDate)
  const nbf = typeof payload.nbf === 'number' ? payload.nbf : dateSeconds(doc.issuanceDate)
  if (payload.exp === undefined && exp !== undefined && exp <= now - SKEW_S) throw refuse('expired', 'The credential has expired')
  if (payload.nbf === undefined && nbf !== undefined && nbf > now + SKEW_S) throw refuse('not_yet_valid', 'The credential is not valid yet')

  const status = await deps.status.check(doc.credentialStatus, signer)
  if (status.state === 'revoked') throw refuse('revoked', 'The issuer has revoked this credential: a revoked credential cannot be imported')
  if (status.state === 'unknown') throw refuse('status_unknown', `The credential's status could not be checked: ${status.reason}`)

  const types = Array.isArray(doc.type) ? doc.type.filter((t): t is string => typeof t === 'string') : typeof doc.type === 'string' ? [doc.type] : []
  const schema = doc.credentialSchema as { schemaId?: unknown; id?: unknown } | undefined
  const jti = typeof payload.jti === 'string' && payload.jti.length > 0 && payload.jti.length <= 500 ? payload.jti : undefined
  const iat = typeof payload.iat === 'number' ? payload.iat : typeof nbf === 'number' ? nbf : undefined
  return {
    jwt,
    issuerDid: signer,
    issuerName: typeof (doc.issuer as { name?: unknown } | undefined)?.name === 'string' ? ((doc.issuer as { name: string }).name) : undefined,
    sourceId: jti ?? `sha256:${createHash('sha256').update(jwt).digest('hex')}`,
    jti,
    credentialType: types.filter((t) => t !== 'VerifiableCredential').at(-1) ?? 'VerifiableCredential',
    schemaId: typeof schema?.schemaId === 'string' ? schema.schemaId : typeof schema?.id === 'string' ? schema.id : '',
    attributes,
    credentialHash: jcsSha256Hex(vc),
    issuedAt: iat === undefined ? null : new Date(iat * 1000),
    expiresAt: typeof exp === 'number' ? new Date(exp * 1000) : null,
    extensions: Array.isArray(doc.extensions) ? doc.extensions.filter((e): e is string => typeof e === 'string') : [],
  }
}

function sameDid(value: string, holderDid: string): boolean {
  try {
    return normalizeDid(value) === holderDid
  } catch {
    return false
  }
}

function dateSeconds(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000)
}
