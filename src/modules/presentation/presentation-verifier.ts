import type { Clock } from '../../adapters/clock.js'
import { decodeCompactJws } from '../../crypto/jws.js'
import type { RequiredCredential, RequiredPredicate } from '../../db/database.js'
import { JwsRejected, JwtClaimRejected, verifyDidJws, type VerifiedJws } from '../did/did-jws.js'
import type { DidResolver } from '../did/did-resolver.js'
import type { StatusChecker } from '../status-list/status-check.js'
import type { CheckResult, CredentialProblem, ReadCredential } from '../credentials/formats/credential-format.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import { unmetRequirements, type PresentedCredential } from './presentation-requirements.js'
import { checkPresentationProof, dataIntegrityEnvelope, isDataIntegrityPresentation, verifyDataIntegrityPresentation } from '../credentials/formats/data-integrity/data-integrity-presentation.js'
import { documentOf } from '../credentials/formats/data-integrity/data-integrity-checks.js'
import type { LocalDocuments } from '../credentials/formats/data-integrity/document-loader.js'

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

// How old `iat` may be, on receipt, for a VP without exp (plus the clock skew).
const FRESH_S = 300

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

  /**
   * The DID whose authentication key signed this VP-JWT; throws JwsRejected, saying why, when no
   * key of a resolvable DID document verifies it.
   */
  async signer(jwt: string): Promise<string> {
    if (isDataIntegrityPresentation(jwt)) {
      // Its own challenge and domain: whether they are the request's is the verification's to say.
      const envelope = dataIntegrityEnvelope(jwt)!
      const now = this.deps.clock.now()
      const { holder, problems } = await checkPresentationProof(documentOf(jwt)!, { challenge: String(envelope.challenge), domain: String(envelope.domains[0]), resolver: this.deps.resolver, local: this.deps.local, now, skewSeconds: this.deps.skewSeconds })
      const proofProblem = problems.find((p) => p.reason !== 'binding' || holder === undefined)
      if (!holder || proofProblem) throw new JwsRejected(proofProblem?.message ?? 'the presentation proof does not verify')
      return holder
    }
    return (await verifyDidJws(this.deps.resolver, jwt, 'authentication')).did
  }

  async verify(input: VerificationInput): Promise<VerificationOutcome> {
    if (isDataIntegrityPresentation(input.jwt)) return this.verifyDataIntegrity(input)
    const { errors, checked, unreadable } = await this.vpJwtChecks(input)
    return unreadable ? outcome(errors, []) : this.conclude(errors, checked, input)
  }

  /**
   * OpenID4VP 1.0 (docs/openid4vp.md): the presentations of one vp_token, concluded together
   * against the request, so each requirement is met by one credential whatever presentation
   * carries it. A VP-JWT (`jwt_vc_json`, its credentials JWT-VCs or Dock BBS derived proofs) is
   * checked as the spec's VP-JWTs are, its `aud` the client id; any other item must carry its
   * own holder proof for that nonce and audience (SD-JWT VC: a KB-JWT, §B.3.5), bound to
   * `holderDid` when one is given. Each presentation's read credentials come back with it (for
   * the DCQL check).
   */
  async verifyOpenid4vp(input: {
    presentations: Array<{ item: unknown; holderDid?: string }>
    proverDid: string
    audience: string
    /** What a derived proof inside a VP-JWT names as its audience (the verifier's DID of a `decentralized_identifier` client id). */
    credentialAudience?: string
    verifierDid: string
    presentationType: string
    request: NonNullable<VerificationInput['request']>
  }): Promise<VerificationOutcome & { read: Array<ReadCredential[]>; holderProof: boolean }> {
    const errors: string[] = []
    const checked: CheckResult[] = []
    const read: Array<ReadCredential[]> = []
    const now = this.deps.clock.now()
    const declared: string[] = []
    // Whether every presentation proves, for this nonce and audience, the holder's possession of what it presents.
    let holderProof = input.presentations.length > 0
    for (const [i, { item, holderDid }] of input.presentations.entries()) {
      const payload = typeof item === 'string' ? decodeCompactJws(item)?.payload : undefined
      if (payload && payload.vp !== undefined) {
        const vp = { jwt: item as string, proverDid: input.proverDid, verifierDid: input.audience, credentialAudience: input.credentialAudience, presentationType: input.presentationType, credentialIds: [], request: { ...input.request, required_credentials: [], required_predicates: [] } }
        const result = await this.vpJwtChecks(vp)
        // The VP-JWT's own checks (signature by the holder, iss, aud, nonce, lifetime, a credential in it) are its holder proof.
        if (result.unreadable || result.errors.length > 0) holderProof = false
        errors.push(...result.errors.map((e) => `presentation ${i + 1}: ${e}`))
        checked.push(...result.checked)
        read.push(result.checked.flatMap((c) => (c.credential ? [c.credential] : [])))
        continue
      }
      const format = this.deps.formats.recognize(item)
      if (!format || format.id !== 'dc+sd-jwt') {
        holderProof = false
        errors.push(`presentation ${i + 1}: ${format ? `a ${format.id} credential is presented inside a VP-JWT (jwt_vc_json), which carries the holder's proof` : 'it is in no presentation format this service reads'}`)
        read.push([])
        continue
      }
      const result = await format.verify(item, { resolver: this.deps.resolver, status: this.deps.status, now, skewSeconds: this.deps.skewSeconds, holderDid, presentation: { nonce: input.request.nonce, audience: input.audience } })
      // An SD-JWT VC's holder proof is its KB-JWT (B.3.5), by the key the credential is bound to, that key the holder's.
      if (!result.credential || result.problems.some((p) => p.reason === 'binding' || p.reason === 'subject')) holderProof = false
      checked.push(result)
      read.push(result.credential ? [result.credential] : [])
    }
    for (const c of checked) if (c.credential?.id) declared.push(c.credential.id)
    const concluded = await this.conclude(errors, checked, { jwt: '', proverDid: input.proverDid, verifierDid: input.verifierDid, presentationType: input.presentationType, credentialIds: declared, request: input.request })
    return { ...concluded, read, holderProof }
  }

  /**
   * A VP-JWT's own checks (signature by the holder, iss, aud, nonce, lifetime, vp) and each of
   * its credentials by its format; `unreadable` when there is nothing to check credentials of.
   */
  private async vpJwtChecks(input: VerificationInput): Promise<{ errors: string[]; checked: CheckResult[]; unreadable: boolean }> {
    const errors: string[] = []
    const currentDate = this.deps.clock.now()
    const now = Math.floor(currentDate.getTime() / 1000)
    let payload = decodeCompactJws(input.jwt)?.payload
    const verified = await lifetimeChecked('presentation', errors, () =>
      verifyDidJws(this.deps.resolver, input.jwt, 'authentication', { currentDate, clockTolerance: this.deps.skewSeconds }),
    ).catch((error: unknown) => {
      errors.push(`presentation signature: ${error instanceof JwsRejected ? error.message : 'could not be checked'}`)
      return undefined
    })
    if (verified) {
      payload = verified.payload
      if (verified.did !== input.proverDid) errors.push(`the presentation is signed by ${verified.did}, not by the holder ${input.proverDid}`)
    }
    if (!payload) return { errors, checked: [], unreadable: true }

    if (payload.iss !== input.proverDid) errors.push(`presentation iss ${JSON.stringify(payload.iss)} is not the holder ${input.proverDid}`)
    const audience = Array.isArray(payload.aud) ? payload.aud : [payload.aud]
    if (!audience.includes(input.verifierDid)) errors.push(`presentation audience ${JSON.stringify(payload.aud)} is not the verifier ${input.verifierDid}`)
    if (input.request && payload.nonce !== input.request.nonce) errors.push('presentation nonce does not match the request')
    if (verified) errors.push(...issuedInFuture('presentation', payload, now, this.deps.skewSeconds), ...unboundedLifetime(payload, input, currentDate, this.deps.skewSeconds))

    const vp = payload.vp as { holder?: unknown; verifiableCredential?: unknown } | undefined
    if (!vp || typeof vp !== 'object') return { errors: [...errors, 'the presentation has no vp claim'], checked: [], unreadable: true }
    if (vp.holder !== undefined && vp.holder !== input.proverDid) errors.push('vp.holder is not the holder')
    const items = Array.isArray(vp.verifiableCredential) ? vp.verifiableCredential : []
    if (items.length === 0) errors.push('the presentation holds no credential')

    const nonce = typeof payload.nonce === 'string' ? payload.nonce : undefined
    const checked: CheckResult[] = []
    for (const item of items) checked.push(await this.credential(item, input, nonce, currentDate))
    return { errors, checked, unreadable: false }
  }

  /** Each credential's problems, then what the presentation declared and what the request requires: the outcome. */
  private async conclude(errors: string[], checked: CheckResult[], input: VerificationInput): Promise<VerificationOutcome> {
    const presented: PresentedCredential[] = []
    for (const [i, result] of checked.entries()) {
      errors.push(...result.problems.map((p) => `credential ${i + 1}${result.credential?.id ? ` (${result.credential.id})` : ''}: ${p.message}`))
      if (result.credential) presented.push(await this.presented(result.problems, result.credential))
    }
    const ids = presented.map((c) => c.id).filter((id): id is string => id !== undefined)
    const undeclared = ids.filter((id) => !input.credentialIds.includes(id))
    if (undeclared.length) errors.push(`credentials presented but not declared in credential_ids: ${undeclared.join(', ')}`)
    if (input.request) errors.push(...unmetRequirements(presented, input.request.required_credentials, input.request.required_predicates))
    return outcome(errors, presented)
  }

  /**
   * A VCDM 2.0 presentation with a Data Integrity proof: its proof's challenge must be the request's
   * nonce and its domain the verifier (VC Data Integrity §2.1), made by the holder's
   * `authentication` method; each credential by its format; then the request's requirements.
   * Without a request, its proof must be recent (`created` within FRESH_S of receipt), as a VP-JWT's `iat`.
   */
  private async verifyDataIntegrity(input: VerificationInput): Promise<VerificationOutcome> {
    const now = this.deps.clock.now()
    const envelope = dataIntegrityEnvelope(input.jwt)!
    const challenge = input.request?.nonce ?? (typeof envelope.challenge === 'string' ? envelope.challenge : '')
    const result = await verifyDataIntegrityPresentation(input.jwt, {
      challenge,
      domain: input.verifierDid,
      holderDid: input.proverDid,
      formats: this.deps.formats,
      resolver: this.deps.resolver,
      status: this.deps.status,
      local: this.deps.local,
      now,
      skewSeconds: this.deps.skewSeconds,
    })
    const errors = result.problems.map((p) => p.message)
    if (!input.request) {
      const created = Date.parse(String(proofCreated(input.jwt)))
      const received = (input.receivedAt ?? now).getTime()
      if (Number.isNaN(created) || created < received - (FRESH_S + this.deps.skewSeconds) * 1000) errors.push(`the presentation answers no request, and its proof was not created within ${FRESH_S / 60} minutes before it was received`)
    }
    return this.conclude(errors, result.credentials, input)
  }

  /** One item of `vp.verifiableCredential`, checked by the format that recognizes it. */
  private async credential(item: unknown, input: VerificationInput, nonce: string | undefined, now: Date): Promise<CheckResult> {
    const format = this.deps.formats.recognize(item)
    if (!format) return { problems: [{ reason: 'malformed', message: 'it is in no credential format this service reads' }] }
    return format.verify(item, {
      resolver: this.deps.resolver,
      status: this.deps.status,
      now,
      skewSeconds: this.deps.skewSeconds,
      holderDid: input.proverDid,
      ...(nonce === undefined ? {} : { presentation: { nonce, audience: input.credentialAudience ?? input.verifierDid } }),
    })
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

/**
 * The verified JWS, with the lifetime problem jose found (exp, nbf) pushed to `errors` as one
 * readable line instead of thrown: a presentation reports every problem it has.
 */
async function lifetimeChecked(what: string, errors: string[], verify: () => Promise<VerifiedJws>): Promise<VerifiedJws> {
  try {
    return await verify()
  } catch (error) {
    if (!(error instanceof JwtClaimRejected)) throw error
    const { claim, reason } = error
    if (claim === 'exp') errors.push(reason === 'missing' ? `the ${what} has no exp` : `the ${what} has expired`)
    else if (claim === 'nbf') errors.push(`the ${what} is not valid yet`)
    else errors.push(`the ${what}'s ${error.message}`)
    return error.jws
  }
}

/**
 * A VP's lifetime when it has no `exp` (did-jwt-vc writes none by default; an `exp` that is
 * there is enforced by jose). A recent `iat` (FRESH_S on receipt, plus skew) bounds it. Without
 * `iat` too, only a VP answering a request is accepted: its nonce (checked above with `aud`) is
 * the request's, which is answered once and expires, so the VP cannot be replayed elsewhere.
 * A VP with no request must carry `exp` or a recent `iat`.
 */
function unboundedLifetime(payload: Record<string, unknown>, input: VerificationInput, now: Date, skew: number): string[] {
  if (payload.exp !== undefined) return []
  const received = Math.floor((input.receivedAt ?? now).getTime() / 1000)
  if (typeof payload.iat === 'number') {
    return payload.iat < received - FRESH_S - skew ? [`the presentation has no exp and its iat is more than ${FRESH_S / 60} minutes before it was received`] : []
  }
  return input.request ? [] : ['the presentation has no exp and no iat, and answers no request whose nonce would bind it: one of exp or a recent iat is required']
}

/** jose checks `iat` against the clock only with maxTokenAge, which would make `iat` required. */
function issuedInFuture(what: string, payload: Record<string, unknown>, now: number, skew: number): string[] {
  return typeof payload.iat === 'number' && payload.iat > now + skew ? [`the ${what} is issued in the future`] : []
}

function proofCreated(text: string): unknown {
  const proof = documentOf(text)?.proof
  return (Array.isArray(proof) ? proof[0] : proof)?.created
}

function outcome(errors: string[], presented: PresentedCredential[]): VerificationOutcome {
  const provided = new Set<string>()
  const revoked = new Set<string>()
  for (const c of presented) for (const name of Object.keys(c.attributes)) (c.revoked ? revoked : provided).add(name)
  return {
    isValid: errors.length === 0,
    errors,
    credentialSubjects: presented.map((c) => ({ credential_id: c.id ?? null, issuer: c.issuer, type: c.types.filter((t) => t !== 'VerifiableCredential'), ...c.attributes })),
    provenPredicates: presented.filter((c) => c.valid).flatMap((c) => c.provenPredicates.map((p) => ({ ...p, credential_id: c.id ?? null }))),
    providedAttributes: [...provided].sort(),
    revokedAttributes: [...revoked].sort(),
    anyRevoked: presented.some((c) => c.revoked),
  }
}
