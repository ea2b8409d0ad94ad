import type { Clock } from '../../adapters/clock.js'
import type { RequiredCredential, RequiredPredicate } from '../../db/database.js'
import { JwsRejected } from '../did/did-jws.js'
import type { DidResolver } from '../did/did-resolver.js'
import type { StatusChecker } from '../status-list/status-check.js'
import type { CheckResult, CredentialProblem, ReadCredential } from '../credentials/formats/credential-format.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import {
  isUnreadable,
  type Oid4vpFacts,
  type OpenedPresentation,
  type Unreadable,
} from '../credentials/formats/presentation-kind.js'
import type { LocalDocuments } from '../credentials/formats/registered-formats.js'
import { unmetRequirements, type AlsoKnownAs, type PresentedCredential } from './presentation-requirements.js'

export interface VerificationInput {
  jwt: string
  proverDid: string
  verifierDid: string
  presentationType: string
  credentialIds: string[]
  /** The request answered, when there is one: its nonce and requirements apply. */
  request?: { nonce: string; required_credentials: RequiredCredential[]; required_predicates: RequiredPredicate[] }
  /** When the service received it (the presentation's created_at): what a VP's `iat` must be recent to. */
  receivedAt?: Date
  /** The audience the credentials' own holder proofs name, when not `verifierDid` (OpenID4VP: a derived proof names the verifier's DID, the VP its client id). */
  credentialAudience?: string
  /** What else the request's credentials may be named by (an OpenID4VP query's doctypes). */
  names?: AlsoKnownAs
}

export interface VerificationOutcome {
  isValid: boolean
  errors: string[]
  credentialSubjects: Record<string, unknown>[]
  /** Each predicate a valid credential's proof established, with that credential's id (null when it has none). */
  provenPredicates: Array<RequiredPredicate & { credential_id: string | null }>
  providedAttributes: string[]
  revokedAttributes: string[]
  anyRevoked: boolean
}

/**
 * Every check DESIGN.md lists for a presentation, each failure one readable error: the VP-JWT's
 * signature by a key the holder's DID document authorizes and its holder binding, audience,
 * nonce and lifetime; each credential's issuer signature (from the issuer's DID document),
 * subject binding, validity period and status list; then the request's required credentials,
 * attributes and predicates. Consent is the caller's (it needs the database transaction).
 */
export class PresentationVerifier {
  constructor(
    private readonly deps: {
      resolver: DidResolver
      status: StatusChecker
      clock: Clock
      formats: FormatRegistry
      /** CLOCK_SKEW_SECONDS: clock difference tolerated on iat/nbf/exp between the holder's and issuer's devices and this service. */
      skewSeconds: number
      issuerOf?: (signingDid: string) => Promise<string | undefined>
      local?: LocalDocuments
    },
  ) {}

  /** The spec's `presentation_jwt` read once, by its kind (a VP-JWT, a VP with a Data Integrity proof). */
  open(text: string): OpenedPresentation | Unreadable {
    return this.deps.formats.envelopeKind(text).open(text, this.deps.formats)
  }

  /**
   * The DID whose key made the presentation's holder proof (a VP-JWT's authentication key, a Data
   * Integrity proof for its own challenge and domain); throws JwsRejected, saying why, when none does.
   */
  async signer(presentation: string | OpenedPresentation | Unreadable): Promise<string> {
    const opened = typeof presentation === 'string' ? this.open(presentation) : presentation
    if (isUnreadable(opened)) throw new JwsRejected(opened.reason)
    return opened.signer({ status: this.deps.status, now: this.deps.clock.now(), skewSeconds: this.deps.skewSeconds })
  }

  async verify(input: VerificationInput): Promise<VerificationOutcome> {
    const opened = this.open(input.jwt)
    if (isUnreadable(opened)) return outcome([`presentation signature: ${opened.reason}`], [])
    const result = await opened.verify({
      status: this.deps.status,
      now: this.deps.clock.now(),
      skewSeconds: this.deps.skewSeconds,
      holderDid: input.proverDid,
      audience: input.verifierDid,
      nonce: input.request?.nonce,
      itemAudience: input.credentialAudience,
      receivedAt: input.receivedAt,
    })
    return result.unreadable ? outcome(result.errors, []) : this.conclude(result.errors, result.checked, input)
  }

  /**
   * OpenID4VP 1.0 (docs/openid4vp.md): the presentations of one vp_token, concluded together
   * against the request, so each requirement is met by one credential whatever presentation
   * carries it. Each is checked by its kind (its holder proof for this nonce and audience, the
   * client id, then its credentials); `opened` is undefined for an item of no kind the request
   * takes (a credential that must travel inside a VP-JWT). Each presentation's read credentials
   * come back with it (for the DCQL check).
   */
  async verifyOpenid4vp(input: {
    presentations: Array<{ item: unknown; opened: OpenedPresentation | undefined; holderDid?: string }>
    proverDid: string
    audience: string
    /** What a derived proof inside a VP-JWT names as its audience (the verifier's DID of a `decentralized_identifier` client id). */
    credentialAudience?: string
    verifierDid: string
    presentationType: string
    request: NonNullable<VerificationInput['request']>
    /** The OpenID4VP request answered, for holder proofs bound to all of it. */
    oid4vp?: Oid4vpFacts
    /** What else its credentials may be named by, as its DCQL query asked for them. */
    names?: AlsoKnownAs
  }): Promise<VerificationOutcome & { read: Array<ReadCredential[]>; holderProof: boolean }> {
    const errors: string[] = []
    const checked: CheckResult[] = []
    const read: Array<ReadCredential[]> = []
    const now = this.deps.clock.now()
    const declared: string[] = []
    // Whether every presentation proves, for this nonce and audience, the holder's possession of what it presents.
    let holderProof = input.presentations.length > 0
    for (const [i, { item, opened, holderDid }] of input.presentations.entries()) {
      if (!opened) {
        holderProof = false
        const format = this.deps.formats.recognize(item)
        errors.push(
          `presentation ${i + 1}: ${format ? `a ${format.id} credential is presented inside a VP-JWT (jwt_vc_json), which carries the holder's proof` : 'it is in no presentation format this service reads'}`,
        )
        read.push([])
        continue
      }
      const result = await opened.verify({
        status: this.deps.status,
        now,
        skewSeconds: this.deps.skewSeconds,
        holderDid,
        audience: input.audience,
        nonce: input.request.nonce,
        itemAudience: input.credentialAudience,
        ...(input.oid4vp ? { oid4vp: input.oid4vp } : {}),
      })
      if (result.unreadable || !result.holderProof) holderProof = false
      errors.push(...result.errors.map((e) => `presentation ${i + 1}: ${e}`))
      checked.push(...result.checked)
      read.push(result.checked.flatMap((c) => (c.credential ? [c.credential] : [])))
    }
    for (const c of checked) if (c.credential?.id) declared.push(c.credential.id)
    const concluded = await this.conclude(errors, checked, {
      jwt: '',
      proverDid: input.proverDid,
      verifierDid: input.verifierDid,
      presentationType: input.presentationType,
      credentialIds: declared,
      request: input.request,
      ...(input.names ? { names: input.names } : {}),
    })
    return { ...concluded, read, holderProof }
  }

  /** Each credential's problems, then what the presentation declared and what the request requires: the outcome. */
  private async conclude(
    errors: string[],
    checked: CheckResult[],
    input: VerificationInput,
  ): Promise<VerificationOutcome> {
    const presented: PresentedCredential[] = []
    for (const [i, result] of checked.entries()) {
      errors.push(
        ...result.problems.map(
          (p) => `credential ${i + 1}${result.credential?.id ? ` (${result.credential.id})` : ''}: ${p.message}`,
        ),
      )
      if (result.credential) presented.push(await this.presented(result.problems, result.credential))
    }
    const ids = presented.map((c) => c.id).filter((id): id is string => id !== undefined)
    const undeclared = ids.filter((id) => !input.credentialIds.includes(id))
    if (undeclared.length)
      errors.push(`credentials presented but not declared in credential_ids: ${undeclared.join(', ')}`)
    if (input.request)
      errors.push(
        ...unmetRequirements(
          presented,
          input.request.required_credentials,
          input.request.required_predicates,
          input.names,
        ),
      )
    return outcome(errors, presented)
  }

  private async presented(problems: CredentialProblem[], c: ReadCredential): Promise<PresentedCredential> {
    return {
      id: c.id,
      issuer: c.issuer,
      issuerAlias: await this.deps.issuerOf?.(c.issuer),
      types: c.types,
      schemaIds: c.schemaIds,
      attributes: c.attributes,
      provenPredicates: c.proven?.predicates ?? [],
      provenBounds: c.proven?.bounds ?? [],
      revoked: c.revoked,
      valid: problems.length === 0,
    }
  }
}

function outcome(errors: string[], presented: PresentedCredential[]): VerificationOutcome {
  const provided = new Set<string>()
  const revoked = new Set<string>()
  for (const c of presented) for (const name of Object.keys(c.attributes)) (c.revoked ? revoked : provided).add(name)
  return {
    isValid: errors.length === 0,
    errors,
    credentialSubjects: presented.map((c) => ({
      credential_id: c.id ?? null,
      issuer: c.issuer,
      type: c.types.filter((t) => t !== 'VerifiableCredential'),
      ...c.attributes,
    })),
    provenPredicates: presented
      .filter((c) => c.valid)
      .flatMap((c) => c.provenPredicates.map((p) => ({ ...p, credential_id: c.id ?? null }))),
    providedAttributes: [...provided].sort(),
    revokedAttributes: [...revoked].sort(),
    anyRevoked: presented.some((c) => c.revoked),
  }
}
