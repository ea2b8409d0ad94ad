import { randomUUID } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import { RETIRED_RANGE_PROOF_PROTOCOL, usesRetiredRangeProof } from '../../crypto/bbs/anonymous-proof-format.js'
import { decodeCompactJws } from '../../crypto/jws.js'
import type { Transaction } from 'kysely'
import type { Database, DB, Executor } from '../../db/database.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import { MicroBatcher } from '../../shared/micro-batcher.js'
import { storableJson } from '../../db/storable-json.js'
import { isUniqueViolation } from '../../db/pg-errors.js'
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors.js'
import { claimIn, type ClaimKey } from '../idempotency/idempotency.service.js'
import type { PresentationRequestRow } from '../verifier/verifier.types.js'
import type { VerifierService } from '../verifier/verifier.service.js'
import { eventData } from './holder-presentations.service.js'
import type { CallbackPort, ChainCheckPort, ConsentPort, Openid4vpRecheckPort } from './presentation-ports.js'
import type { PresentationVerifier, VerificationOutcome as VerifiedOutcome } from './presentation-verifier.js'
import { JwsRejected } from '../did/did-jws.js'
import { isUnreadable } from '../credentials/formats/presentation-kind.js'
import * as repo from './presentations.repository.js'

/**
 * Closes the pending request and stores its presentation, all or nothing in one statement
 * (the protocol records its own answer beside them): undefined when the request was answered already.
 */
export type AnswerStore = (
  db: Executor,
  presentation: repo.SubmittedPresentation & { request_id: string },
) => Promise<repo.PresentationRow | undefined>

type ConsentCheck = Awaited<ReturnType<ConsentPort['check']>>

/** An answer `recordAnswer` did not record because it would not be accepted (`onlyIfAccepted`): its problems. */
export class AnswerNotAccepted extends ValidationError {
  constructor(readonly problems: string[]) {
    super(`The presentation is refused: ${problems.join('; ')}`)
  }
}

/** The spec's verification result (inside the verify response). */
export interface VerificationResultBody {
  is_valid: boolean
  prover_did: string
  verifier_did: string
  presentation_type: string
  credential_subjects: Record<string, unknown>[]
  /** Beside the spec's fields: each predicate a valid credential proved without disclosing the value. */
  proven_predicates: Array<{
    attribute: string
    operator: string
    value: number | string
    credential_id: string | null
  }>
  errors: string[]
  verified_at: string
}

export interface VerifyResponse {
  success: true
  verification_result: VerificationResultBody
  blockchain_verification: { on_chain: boolean; revoked: boolean; verified: boolean }
  status: string
  auto_approved: boolean
  consent_valid: boolean
  presentation: repo.PresentationRow
}

/**
 * The verifier's side: presentations received (through a holder's approval, or submitted
 * directly), read and verified. Verification is repeatable: a credential revoked since turns a
 * verified presentation into a failed one.
 */
export class VerifierPresentationService {
  // Concurrent verifications whose only write is the outcome share one statement (group commit):
  // on PostgreSQL the outcome's own statement and commit were a fifth of a verification's cost.
  private readonly outcomes: MicroBatcher<repo.OutcomeWrite, repo.PresentationRow | Error>

  constructor(
    private readonly deps: {
      db: Database
      clock: Clock
      verifiers: VerifierService
      verifier: PresentationVerifier
      formats: FormatRegistry
      consents?: ConsentPort
      callbacks?: CallbackPort
      chain?: ChainCheckPort
      openid4vp?: Openid4vpRecheckPort
    },
  ) {
    this.outcomes = new MicroBatcher(async (writes) => {
      try {
        return await repo.recordVerifications(deps.db, writes)
      } catch (error) {
        if (writes.length === 1) return [error as Error]
        // One outcome the database refuses (a value it cannot store, a presentation gone
        // meanwhile) must not fail its neighbours: each is written alone.
        return Promise.all(
          writes.map((w) =>
            repo.recordVerifications(deps.db, [w]).then(
              (r) => r[0]!,
              (e: Error) => e,
            ),
          ),
        )
      }
    }, 128)
  }

  /** The verifier's or the prover's presentation; anyone else's is as unknown as a missing one. */
  async get(callerDid: string, id: string): Promise<repo.PresentationRow> {
    const found = await repo.findPresentation(this.deps.db, id)
    if (!found || (found.verifier_did !== callerDid && found.prover_did !== callerDid))
      throw new NotFoundError('Presentation not found')
    return found
  }

  list(verifierDid: string, page: { limit: number; after?: string }): Promise<repo.PresentationRow[]> {
    return repo.listPresentations(this.deps.db, { verifierDid }, page)
  }

  /**
   * A VP-JWT received outside the holder flow (POST /api/verifier/presentations): the caller is
   * its holder (iss) or its verifier (aud). With request_id it answers that request. `claim`: an
   * Idempotency-Key, recorded in the transaction that stores the presentation and its callback event.
   */
  async submit(
    callerDid: string,
    input: { presentation_jwt: string; request_id?: string; presentation_type?: string },
    claim?: ClaimKey,
  ): Promise<repo.PresentationRow> {
    const { prover, verifierDid, ids } = await this.signedEnvelope(callerDid, input.presentation_jwt)
    let request: PresentationRequestRow | undefined
    if (input.request_id !== undefined) {
      request = await this.deps.verifiers.findRequest(input.request_id)
      // A request addressed to another holder is as unknown to this one as a missing request.
      if (
        !request ||
        request.verifier_did !== verifierDid ||
        (request.holder_did !== null && request.holder_did !== prover)
      )
        throw new ValidationError(`Unknown request_id "${input.request_id}" for verifier ${verifierDid}`, {
          details: { field: 'request_id' },
        })
      const status = this.deps.verifiers.effectiveStatus(request)
      if (status !== 'pending') throw new ConflictError(`The presentation request is ${status}`)
    }
    const now = this.deps.clock.now()
    const id = `pres-${randomUUID()}`
    try {
      const row = await this.deps.db.transaction().execute(async (trx) => {
        // The key first, as the holder's approval does: a duplicate waits on it, then replays this answer.
        await claimIn(trx, claim, id)
        if (request && !(await repo.closeRequest(trx, request.id, 'submitted', now)))
          throw new ConflictError('This request was already answered')
        const inserted = await repo.insertSubmitted(trx, {
          id,
          request_id: request?.id ?? null,
          prover_did: prover,
          verifier_did: verifierDid,
          presentation_type: request?.presentation_type ?? input.presentation_type ?? 'direct',
          credential_ids: ids,
          presentation_jwt: input.presentation_jwt,
          at: now,
        })
        if (request?.callback_url && this.deps.callbacks)
          await this.deps.callbacks.enqueue(trx, {
            url: request.callback_url,
            type: 'presentation.submitted',
            data: eventData(inserted),
          })
        return inserted
      })
      if (request?.callback_url) this.deps.callbacks?.nudge()
      return row
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('This request was already answered')
      throw error
    }
  }

  /**
   * Who presents a submission to whom, and the ids of what it holds, once its holder's proof is
   * checked: read once by its kind (a VP-JWT: iss, aud, vp.verifiableCredential; a VP with a Data
   * Integrity proof: holder, the proof's domain, verifiableCredential). The caller must be its holder or its verifier.
   */
  private async signedEnvelope(
    callerDid: string,
    text: string,
  ): Promise<{ prover: string; verifierDid: string; ids: string[] }> {
    const invalid = (why: string) => new ValidationError(why, { details: { field: 'presentation_jwt' } })
    const opened = this.deps.verifier.open(text)
    if (isUnreadable(opened)) {
      throw invalid(
        opened.nesting
          ? `presentation_jwt is refused: ${opened.nesting}`
          : 'presentation_jwt is neither a compact JWS nor a presentation with a Data Integrity proof (eddsa-rdfc-2022, eddsa-jcs-2022)',
      )
    }
    const { holder: prover, audience: verifierDid } = opened
    if (opened.unnamed !== undefined || prover === undefined || verifierDid === undefined)
      throw invalid(`presentation_jwt ${opened.unnamed ?? 'names no holder or verifier'}`)
    if (callerDid !== prover && callerDid !== verifierDid)
      throw new ForbiddenError('Only the holder (iss) or the verifier (aud) of a presentation may submit it')
    // It will be listed among the holder's presentations: only what the holder signed is.
    const signer = await this.deps.verifier.signer(opened).catch((error: unknown) => {
      if (error instanceof JwsRejected)
        throw invalid(`presentation_jwt is not signed by its holder ${prover}: ${error.message}`)
      throw error
    })
    if (signer !== prover) throw invalid(`presentation_jwt is signed by ${signer}, not by its holder (iss) ${prover}`)
    return { prover, verifierDid, ids: opened.items.flatMap((item) => (item.id === undefined ? [] : [item.id])) }
  }

  async verify(verifierDid: string, id: string, input: { presentation_jwt: string }): Promise<VerifyResponse> {
    const jwt = input.presentation_jwt.trim()
    const found = await repo.findPresentationToVerify(this.deps.db, id, jwt)
    if (!found || found.presentation.verifier_did !== verifierDid) throw new NotFoundError('Presentation not found')
    if (!found.jwtMatches)
      throw new ValidationError('presentation_jwt is not the JWT of this presentation', {
        details: { field: 'presentation_jwt' },
      })
    const presentation = { ...found.presentation, presentation_jwt: jwt }
    // Its proof can no longer be checked: checking again would overwrite the verdict it got when it could.
    if (presentation.verified_at !== null && holdsRetiredRangeProof(jwt)) {
      throw new ConflictError(
        `This presentation holds an anonymous proof made with ${RETIRED_RANGE_PROOF_PROTOCOL}, which this service no longer verifies: its recorded verdict (${presentation.status}) stands and is not re-checked`,
      )
    }
    const { request } = found
    const now = this.deps.clock.now()
    const consents = this.deps.consents
    // The checks of the presentation and the consent lookup are independent: both at once.
    const answered = request
      ? {
          nonce: request.nonce,
          required_credentials: request.required_credentials,
          required_predicates: request.required_predicates,
        }
      : undefined
    // A vp_token received over OpenID4VP is checked again as it was on receipt.
    const recheck =
      answered && this.deps.openid4vp ? this.deps.openid4vp.recheck(presentation, answered) : Promise.resolve(undefined)
    const [outcome, consent] = await Promise.all([
      recheck.then(
        (rechecked) =>
          rechecked ??
          this.deps.verifier.verify({
            jwt: presentation.presentation_jwt,
            proverDid: presentation.prover_did,
            verifierDid,
            presentationType: presentation.presentation_type,
            credentialIds: presentation.credential_ids,
            request: answered,
            receivedAt: presentation.created_at,
          }),
      ),
      consents && request
        ? consents.check(presentation.prover_did, verifierDid, request.purpose, now)
        : { valid: false, consent: undefined, reason: undefined },
    ])
    return this.settle({ presentation, request, verifierDid, outcome, consent, now })
  }

  /**
   * OpenID4VP (docs/openid4vp.md): a wallet's answer to a request, already verified by the
   * caller, recorded as the spec's submit and verify routes record theirs: the request closed and
   * the presentation inserted by `store` (one statement, with the protocol's own record), then its verdict with the
   * same consent check and callbacks. A request no longer pending is a ConflictError (a replay).
   * With `onlyIfAccepted`, an answer that fails its checks or the consent is AnswerNotAccepted, and nothing is written.
   */
  async recordAnswer(
    request: PresentationRequestRow,
    answer: { prover: string; text: string; credentialIds: string[]; outcome: VerifiedOutcome },
    store: AnswerStore,
    options: { onlyIfAccepted?: boolean } = {},
  ): Promise<VerifyResponse> {
    const now = this.deps.clock.now()
    if (options.onlyIfAccepted) {
      // Checked before anything is written, as settle() checks it after: a refused answer records nothing.
      const consent = await this.deps.consents?.check(answer.prover, request.verifier_did, request.purpose, now)
      const withdrawn = consent?.consent && !consent.valid ? [`consent: ${consent.reason ?? 'not valid'}`] : []
      const problems = [...answer.outcome.errors, ...withdrawn]
      if (problems.length) throw new AnswerNotAccepted(problems)
    }
    const callbacks = request.callback_url ? this.deps.callbacks : undefined
    const insert = async (db: Executor) => {
      const row = await store(db, {
        id: `pres-${randomUUID()}`,
        request_id: request.id,
        prover_did: answer.prover,
        verifier_did: request.verifier_did,
        presentation_type: request.presentation_type,
        credential_ids: answer.credentialIds,
        presentation_jwt: answer.text,
        at: now,
      })
      if (!row) throw new ConflictError('This request was already answered')
      return row
    }
    // The store is one statement: a transaction only when the callback's outbox row joins it.
    const inserted = await (callbacks
      ? this.deps.db.transaction().execute(async (trx) => {
          const row = await insert(trx)
          await callbacks.enqueue(trx, {
            url: request.callback_url!,
            type: 'presentation.submitted',
            data: eventData(row),
          })
          return row
        })
      : insert(this.deps.db)
    ).catch((error: unknown) => {
      if (isUniqueViolation(error)) throw new ConflictError('This request was already answered')
      throw error
    })
    if (request.callback_url) this.deps.callbacks?.nudge()
    const consent = this.deps.consents
      ? await this.deps.consents.check(answer.prover, request.verifier_did, request.purpose, now)
      : { valid: false, consent: undefined, reason: undefined }
    const {
      presentation_jwt: _text,
      verification_result: _r,
      provided_attributes: _p,
      revoked_attributes: _v,
      ...read
    } = inserted
    return this.settle({
      presentation: { ...read, presentation_jwt: answer.text },
      request,
      verifierDid: request.verifier_did,
      outcome: answer.outcome,
      consent,
      now,
    })
  }

  /** A verification's outcome with the consent state: the verdict written, its event queued, the spec's answer. */
  private async settle(p: {
    presentation: repo.PresentationToVerify & { presentation_jwt: string }
    request: Pick<repo.AnsweredRequest, 'id' | 'callback_url'> | undefined
    verifierDid: string
    outcome: VerifiedOutcome
    consent: ConsentCheck
    now: Date
  }): Promise<VerifyResponse> {
    const { presentation, request, verifierDid, outcome, consent, now } = p
    const consents = this.deps.consents
    const errors = [...outcome.errors]
    // A consent the holder granted for the request's purpose and then withdrew (revoked, expired,
    // used) fails the presentation; with none ever granted for it, or no request (so no purpose),
    // the holder's approval of the request, or its signature on the VP, is the consent.
    if (consent.consent && !consent.valid && consent.consent.used_by !== presentation.id)
      errors.push(`consent: ${consent.reason ?? 'not valid'}`)

    const consumes = consent.valid && consent.consent?.expiration_policy === 'one_time_use' && errors.length === 0
    const callbackUrl = this.deps.callbacks ? request?.callback_url : null
    // `trx` is there exactly when consumes or callbackUrl asks for it (below).
    const write = async (trx?: Transaction<DB>) => {
      let consentValid = consent.valid || consent.consent?.used_by === presentation.id
      if (consumes && consent.consent) {
        // Consumed only by a presentation that passes every other check, exactly once.
        consentValid = await consents!.consume(trx!, consent.consent.id, presentation.id, now)
        if (!consentValid) errors.push('consent: the one-time consent was already used')
      }
      const isValid = errors.length === 0
      const status = isValid ? 'verified' : 'failed'
      // Stored as jsonb, and it quotes what the holder sent: made storable rather than refused.
      const result: VerificationResultBody = storableJson({
        is_valid: isValid,
        prover_did: presentation.prover_did,
        verifier_did: verifierDid,
        presentation_type: presentation.presentation_type,
        credential_subjects: outcome.credentialSubjects,
        proven_predicates: outcome.provenPredicates,
        errors,
        verified_at: now.toISOString(),
      })
      const recorded: repo.OutcomeWrite = {
        read: presentation,
        outcome: {
          status,
          is_verified: isValid,
          provided_attributes: storableJson(outcome.providedAttributes),
          revoked_attributes: storableJson(outcome.revokedAttributes),
          verification_result: { ...result },
          consent_id: consentValid ? (consent.consent?.id ?? null) : null,
          at: now,
          ...(request ? { request_id: request.id } : {}),
        },
      }
      const row = trx ? (await repo.recordVerifications(trx, [recorded]))[0]! : await this.outcomes.submit(recorded)
      if (row instanceof Error) throw row
      if (callbackUrl) {
        await this.deps.callbacks!.enqueue(trx!, {
          url: callbackUrl,
          type: isValid ? 'presentation.verified' : 'presentation.failed',
          data: { ...eventData(row), is_valid: isValid, errors: result.errors },
        })
      }
      return { row, result, consentValid }
    }
    // The outcome alone goes to the group-committed writer; consuming a consent or enqueueing an
    // event with it needs a transaction around them.
    const saved =
      consumes || callbackUrl ? await this.deps.db.transaction().execute((trx) => write(trx)) : await write()
    if (callbackUrl) this.deps.callbacks!.nudge()
    // With a chain configured the registries are read live; without one nothing is on chain.
    const presented = outcome.credentialSubjects.map((c) => ({
      id: typeof c.credential_id === 'string' ? c.credential_id : null,
      issuer: String(c.issuer),
    }))
    const onChain = this.deps.chain
      ? await this.deps.chain(presented)
      : { on_chain: false, revoked: false, verified: false }
    return {
      success: true,
      verification_result: saved.result,
      blockchain_verification: {
        on_chain: onChain.on_chain,
        revoked: outcome.anyRevoked || onChain.revoked,
        verified: onChain.verified,
      },
      status: saved.row.status,
      auto_approved: saved.consentValid,
      consent_valid: saved.consentValid,
      presentation: saved.row,
    }
  }

  /** Sends the presentation's latest event to the request's callback_url again. */
  async resend(verifierDid: string, id: string): Promise<string> {
    const presentation = await repo.findPresentation(this.deps.db, id)
    if (!presentation || presentation.verifier_did !== verifierDid) throw new NotFoundError('Presentation not found')
    const request = presentation.request_id ? await this.deps.verifiers.findRequest(presentation.request_id) : undefined
    if (!request?.callback_url) throw new ConflictError('This presentation has no callback_url to send to')
    if (!this.deps.callbacks) throw new ConflictError('Callbacks are not enabled')
    const type =
      presentation.status === 'verified'
        ? 'presentation.verified'
        : presentation.status === 'failed'
          ? 'presentation.failed'
          : 'presentation.submitted'
    const callbacks = this.deps.callbacks
    const eventId = await this.deps.db.transaction().execute((trx) =>
      callbacks.enqueue(trx, {
        url: request.callback_url!,
        type,
        data: { ...eventData(presentation), resent: true },
      }),
    )
    callbacks.nudge()
    return eventId
  }
}

/** Whether a VP-JWT carries a derived proof made with the retired range proof. */
function holdsRetiredRangeProof(jwt: string): boolean {
  const vp = decodeCompactJws(jwt)?.payload.vp as { verifiableCredential?: unknown } | undefined
  return Array.isArray(vp?.verifiableCredential) && vp.verifiableCredential.some(usesRetiredRangeProof)
}
