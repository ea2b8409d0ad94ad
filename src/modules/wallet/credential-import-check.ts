import { createHash } from 'node:crypto'
import { jcsSha256Hex } from '../../crypto/jcs.js'
import { UnprocessableError, ValidationError } from '../../errors.js'
import { freeFormProblem } from '../../json-limits.js'
import type { ProblemReason } from '../credentials/formats/credential-format.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import type { DidResolver } from '../did/did-resolver.js'
import type { StatusChecker } from '../status-list/status-check.js'

/** Why an import was refused; `details.reason` of the 422 (docs/wallet.md "Import"). */
export type ImportRefusal = Exclude<ProblemReason, 'unreadable' | 'binding'>

export interface CheckedCredential {
  jwt: string
  format: string
  issuerDid: string
  /** `issuer.name` of the document when it gives one. */
  issuerName: string | undefined
  /** Its id (`jti`), else a digest of the credential: what makes two imports the same credential. */
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

/**
 * The checks a holder's wallet makes before it keeps a credential from elsewhere: the format that
 * recognizes it verifies it exactly as a verifier would (format-registry.ts), bound to this
 * holder, with CLOCK_SKEW_SECONDS on its times; the first problem found is the refusal. Something no format reads is a 400.
 */
export async function checkImportedCredential(
  deps: { formats: FormatRegistry; resolver: DidResolver; status: StatusChecker; now: Date; skewSeconds: number },
  item: string,
  holderDid: string,
): Promise<CheckedCredential> {
  const format = deps.formats.recognize(item)
  const unreadable = (why: string) =>
    new ValidationError(`credential_jwt is refused: ${why}`, { details: { field: 'credential_jwt' } })
  if (!format)
    throw unreadable('it is not a JWT (three base64url parts: header.payload.signature) in a format this service reads')
  const { problems, credential } = await format.verify(item, {
    resolver: deps.resolver,
    status: deps.status,
    now: deps.now,
    skewSeconds: deps.skewSeconds,
    holderDid,
  })
  const first = problems[0]
  if (first?.reason === 'unreadable') throw unreadable(first.message)
  if (first)
    throw new UnprocessableError(`The credential cannot be imported: ${first.message}`, {
      details: { reason: first.reason === 'binding' ? 'subject' : first.reason },
    })
  if (!credential)
    throw new UnprocessableError('The credential cannot be imported: it could not be read', {
      details: { reason: 'malformed' },
    })
  // The claims are kept as the wallet's free-form credential_data: the limits of any free-form value.
  const claimsProblem = freeFormProblem(credential.attributes)
  if (claimsProblem) throw unreadable(`its credentialSubject ${claimsProblem}`)
  const jti = credential.id !== undefined && credential.id.length <= 500 ? credential.id : undefined
  return {
    jwt: item,
    format: format.id,
    issuerDid: credential.issuer,
    issuerName: credential.issuerName,
    sourceId: jti ?? `sha256:${createHash('sha256').update(item).digest('hex')}`,
    jti,
    credentialType: credential.types.filter((t) => t !== 'VerifiableCredential').at(-1) ?? 'VerifiableCredential',
    schemaId: credential.schemaIds.at(-1) ?? '',
    attributes: credential.attributes,
    credentialHash: jcsSha256Hex(credential.document),
    issuedAt: credential.issuedAt ?? null,
    expiresAt: credential.expiresAt ?? null,
    extensions: credential.extensions,
  }
}
