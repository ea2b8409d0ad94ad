import type { Clock } from '../../adapters/clock.js'
import { decodeCompactJws } from '../../crypto/jws.js'
import type { RequiredCredential, RequiredPredicate } from '../../db/database.js'
import { JwsRejected, JwtClaimRejected, verifyDidJws, type VerifiedJws } from '../did/did-jws.js'
import type { DidResolver } from '../did/did-resolver.js'
import type { StatusChecker } from '../status-list/status-check.js'
import { unmetRequirements, type PresentedCredential, type ProvenBound } from './presentation-requirements.js'

/** What checking one derived proof found (derived-proof-verifier.ts). */
export interface DerivedProofCheck {
  valid: boolean
  errors: string[]
  issuer: string
  credentialType: string
  /** The schema id the proof discloses (signed as `@schema`). */
  schemaId?: string
  revealed: Record<string, unknown>
  /** The predicates the proof states; each is backed by a verified bound below. */
  predicates: RequiredPredicate[]
  /** The intervals the verified bound checks prove, on the encoded attribute (bbs-messages.ts). */
  bounds: ProvenBound[]
  credentialId?: string
  /** The disclosed W3C status entry; the caller checks it (a derived proof without one fails). */
  statusEntry?: unknown
}

/** Verifies a derived (BBS) proof object of `vp.verifiableCredential`; absent when not wired. */
export type DerivedProofVerifier = (proof: unknown, ctx: { nonce: string; verifierDid: string; holderDid: string }) => Promise<DerivedProofCheck>

export interface VerificationInput {
  jwt: string
  proverDid: string
  verifierDid: string
  presentationType: string
  credentialIds: string[]
  /** The request answered, when there is one: its nonce and requirements apply. */
  request?: { nonce: string; required_credentials: RequiredCredential[]; required_predicates: RequiredPredicate[] }
}

export interface VerificationOutcome {
  isValid: boolean
  errors: string[]
  credentialSubjects: Record<string, unknown>[]
  providedAttributes: string[]
  revokedAttributes: string[]
  anyRevoked: boolean
}

// Clock skew tolerated on iat/nbf/exp between the holder's device and this service.
const SKEW_S = 60

/**
 * Every check DESIGN.md lists for a presentation, each failure one readable error: the VP-JWT's
 * signature by a key the holder's DID document authorizes and its holder binding, audience,
 * nonce and lifetime; each credential's issuer signature (from the issuer's DID document),
 * subject binding, validity period and status list; then the request's required credentials,
 * attributes and predicates. Consent is the caller's (it needs the database transaction).
 */
export class PresentationVerifier {
  constructor(private readonly deps: { resolver: DidResolver; status: StatusChecker; clock: Clock; derived?: DerivedProofVerifier; issuerOf?: (signingDid: string) => Promise<string | undefined> }) {}

  /**
   * The DID whose authentication key signed this VP-JWT; throws JwsRejected, saying why, when no
   * key of a resolvable DID document verifies it.
   */
  async signer(jwt: string): Promise<string> {
    return (await verifyDidJws(this.deps.resolver, jwt, 'authentication')).did
  }

  async verify(input: VerificationInput): Promise<VerificationOutcome> {
    const errors: string[] = []
    const currentDate = this.deps.clock.now()
    const now = Math.floor(currentDate.getTime() / 1000)
    let payload = decodeCompactJws(input.jwt)?.payload
    const verified = await lifetimeChecked('presentation', errors, () =>
      verifyDidJws(this.deps.resolver, input.jwt, 'authentication', { currentDate, clockTolerance: SKEW_S, requiredClaims: ['exp'] }),
    ).catch((error: unknown) => {
      errors.push(`presentation signature: ${error instanceof JwsRejected ? error.message : 'could not be checked'}`)
      return undefined
    })
    if (verified) {
      payload = verified.payload
      if (verified.did !== input.proverDid) errors.push(`the presentation is signed by ${verified.did}, not by the holder ${input.proverDid}`)
    }
    if (!payload) return outcome(errors, [])

    if (payload.iss !== input.proverDid) errors.push(`presentation iss ${JSON.stringify(payload.iss)} is not the holder ${input.proverDid}`)
    const audience = Array.isArray(payload.aud) ? payload.aud : [payload.aud]
    if (!audience.includes(input.verifierDid)) errors.push(`presentation audience ${JSON.stringify(payload.aud)} is not the verifier ${input.verifierDid}`)
    if (input.request && payload.nonce !== input.request.nonce) errors.push('presentation nonce does not match the request')
    if (verified) errors.push(...issuedInFuture('presentation', payload, now))

    const vp = payload.vp as { holder?: unknown; verifiableCredential?: unknown } | undefined
    if (!vp || typeof vp !== 'object') return outcome([...errors, 'the presentation has no vp claim'], [])
    if (vp.holder !== undefined && vp.holder !== input.proverDid) errors.push('vp.holder is not the holder')
    const items = Array.isArray(vp.verifiableCredential) ? vp.verifiableCredential : []
    if (items.length === 0) errors.push('the presentation holds no credential')

    const presented: PresentedCredential[] = []
    for (const [i, item] of items.entries()) {
      const checked = typeof item === 'string' ? await this.jwtCredential(item, input.proverDid, currentDate) : await this.derivedCredential(item, input, payload.nonce)
      errors.push(...checked.errors.map((e) => `credential ${i + 1}${checked.credential?.id ? ` (${checked.credential.id})` : ''}: ${e}`))
      if (checked.credential) presented.push({ ...checked.credential, issuerAlias: await this.deps.issuerOf?.(checked.credential.issuer) })
    }

    const ids = presented.map((c) => c.id).filter((id): id is string => id !== undefined)
    const undeclared = ids.filter((id) => !input.credentialIds.includes(id))
    if (undeclared.length) errors.push(`credentials presented but not declared in credential_ids: ${undeclared.join(', ')}`)
    if (input.request) errors.push(...unmetRequirements(presented, input.request.required_credentials, input.request.required_predicates))
    return outcome(errors, presented)
  }

  private async jwtCredential(jwt: string, holderDid: string, currentDate: Date): Promise<{ errors: string[]; credential?: PresentedCredential }> {
    const errors: string[] = []
    let verified
    try {
      verified = await lifetimeChecked('credential', errors, () => verifyDidJws(this.deps.resolver, jwt, 'assertionMethod', { currentDate, clockTolerance: SKEW_S }))
    } catch (error) {
      return { errors: [`issuer signature: ${error instanceof JwsRejected ? error.message : 'could not be checked'}`] }
    }
    const { payload } = verified
    const vc = payload.vc as { type?: unknown; issuer?: unknown; credentialSubject?: unknown; credentialStatus?: unknown; credentialSchema?: unknown } | undefined
    if (!vc || typeof vc !== 'object') return { errors: ['the JWT has no vc claim'] }
    const issuer = typeof vc.issuer === 'string' ? vc.issuer : (vc.issuer as { id?: unknown } | undefined)?.id
    if (payload.iss !== verified.did || (issuer !== undefined && issuer !== verified.did)) errors.push(`issuer ${String(payload.iss)} did not sign it (${verified.kid})`)
    const subject = vc.credentialSubject && typeof vc.credentialSubject === 'object' ? (vc.credentialSubject as Record<string, unknown>) : {}
    // Holder binding: a credential about someone else cannot be presented by this holder.
    if (payload.sub !== holderDid && subject.id !== holderDid) errors.push('it was issued to another subject than the holder')
    errors.push(...issuedInFuture('credential', payload, Math.floor(currentDate.getTime() / 1000)))
    const status = await this.deps.status.check(vc.credentialStatus, verified.did)
    if (status.state === 'revoked') errors.push('it has been revoked by its issuer')
    if (status.state === 'unknown') errors.push(`its status could not be checked: ${status.reason}`)
    const { id: _subjectId, ...attributes } = subject
    return {
      errors,
      credential: {
        id: typeof payload.jti === 'string' ? payload.jti : undefined,
        format: 'jwt_vc',
        issuer: verified.did,
        types: Array.isArray(vc.type) ? vc.type.filter((t): t is string => typeof t === 'string') : [],
        schemaIds: schemaIdsOf(vc.credentialSchema),
        attributes,
        provenPredicates: [],
        provenBounds: [],
        revoked: status.state === 'revoked',
        valid: errors.length === 0,
      },
    }
  }

  private async derivedCredential(proof: unknown, input: VerificationInput, nonce: unknown): Promise<{ errors: string[]; credential?: PresentedCredential }> {
    if (!this.deps.derived) return { errors: ['derived (anonymous) proofs are not supported by this service'] }
    if (typeof nonce !== 'string') return { errors: ['a derived proof needs the presentation nonce'] }
    const checked = await this.deps.derived(proof, { nonce, verifierDid: input.verifierDid, holderDid: input.proverDid })
    const errors = [...checked.errors]
    if (!checked.valid) return { errors: errors.length ? errors : ['the derived proof does not verify'] }
    // Non-revocation must be shown: a derived proof that discloses no status entry fails.
    const status = checked.statusEntry === undefined ? { state: 'unknown' as const, reason: 'the proof discloses no status entry' } : await this.deps.status.check(checked.statusEntry, checked.issuer)
    const revoked = status.state === 'revoked'
    if (revoked) errors.push('it has been revoked by its issuer')
    if (status.state === 'unknown') errors.push(`its status could not be checked: ${status.reason}`)
    return {
      errors,
      credential: {
        id: checked.credentialId,
        format: 'bbs_derived',
        issuer: checked.issuer,
        types: ['VerifiableCredential', checked.credentialType],
        schemaIds: checked.schemaId ? [checked.schemaId] : [],
        attributes: checked.revealed,
        provenPredicates: checked.predicates,
        provenBounds: checked.bounds,
        revoked,
        valid: errors.length === 0,
      },
    }
  }
}

/** VCDM `credentialSchema` (one or several): each entry's `id`, and this service's `schemaId` beside it. */
function schemaIdsOf(credentialSchema: unknown): string[] {
  const entries = Array.isArray(credentialSchema) ? credentialSchema : [credentialSchema]
  return entries.flatMap((e) => (e && typeof e === 'object' ? [(e as { id?: unknown }).id, (e as { schemaId?: unknown }).schemaId].filter((v): v is string => typeof v === 'string') : []))
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

/** jose checks `iat` against the clock only with maxTokenAge, which would make `iat` required. */
function issuedInFuture(what: string, payload: Record<string, unknown>, now: number): string[] {
  return typeof payload.iat === 'number' && payload.iat > now + SKEW_S ? [`the ${what} is issued in the future`] : []
}

function outcome(errors: string[], presented: PresentedCredential[]): VerificationOutcome {
  const provided = new Set<string>()
  const revoked = new Set<string>()
  for (const c of presented) for (const name of Object.keys(c.attributes)) (c.revoked ? revoked : provided).add(name)
  return {
    isValid: errors.length === 0,
    errors,
    credentialSubjects: presented.map((c) => ({ credential_id: c.id ?? null, issuer: c.issuer, type: c.types.filter((t) => t !== 'VerifiableCredential'), ...c.attributes })),
    providedAttributes: [...provided].sort(),
    revokedAttributes: [...revoked].sort(),
    anyRevoked: presented.some((c) => c.revoked),
  }
}
