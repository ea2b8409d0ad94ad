import { randomUUID } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import { isUnreadable } from '../credentials/formats/presentation-kind.js'
import type { Database, Executor } from '../../db/database.js'
import { isUniqueViolation } from '../../db/pg-errors.js'
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js'
import { claimIn, type ClaimKey } from '../idempotency/idempotency.service.js'
import type { PresentationRequestRow } from '../verifier/verifier.types.js'
import type { VerifierService } from '../verifier/verifier.service.js'
import { inWallet } from '../wallet/wallet-credentials.service.js'
import type { CallbackPort } from './presentation-ports.js'
import * as repo from './presentations.repository.js'
import { recordActivity } from '../wallet/wallet-activity.js'

export interface ApproveInput {
  credential_ids: string[]
  presentation_jwt: string
}

/**
 * The holder's side of a presentation request (DESIGN.md "Presentation"): take the request into
 * the inbox (by id or by the QR payload), then approve it with a VP-JWT the holder signed on its
 * own device, or reject it. A request is answered once.
 */
export class HolderPresentationService {
  constructor(
    private readonly deps: {
      db: Database
      clock: Clock
      verifiers: VerifierService
      formats: Pick<FormatRegistry, 'envelopeKind' | 'recognize'>
      callbacks?: CallbackPort
    },
  ) {}

  async take(
    holderDid: string,
    input: { request_id?: string; qr_code_data?: string },
  ): Promise<{ request: PresentationRequestRow; created: boolean }> {
    if ((input.request_id === undefined) === (input.qr_code_data === undefined)) {
      throw new ValidationError('Send exactly one of request_id and qr_code_data', { details: { field: 'request_id' } })
    }
    const requestId = input.request_id ?? requestIdFromQr(input.qr_code_data)
    const taken = await repo.takeIntoInbox(this.deps.db, {
      request_id: requestId,
      holder_did: holderDid,
      at: this.deps.clock.now(),
    })
    if (!taken) throw new NotFoundError('Presentation request not found')
    // Nothing was added unless the request was open, and then this passes.
    this.assertOpen(taken.request)
    return taken
  }

  async status(holderDid: string, requestId: string) {
    const { entry, request } = await this.inboxEntry(holderDid, requestId)
    const presentation = entry.presentation_id
      ? await repo.findPresentation(this.deps.db, entry.presentation_id)
      : undefined
    return { entry, request, presentation }
  }

  private async inboxEntry(holderDid: string, requestId: string) {
    const found = await repo.findInboxEntryWithRequest(this.deps.db, holderDid, requestId)
    if (!found) throw new NotFoundError('Presentation request not in your inbox')
    return found
  }

  /**
   * `claim`: an Idempotency-Key, recorded in the transaction that stores the answer and its
   * callback event, so a replay (which only reads) can never queue a second event.
   */
  async approve(
    holderDid: string,
    requestId: string,
    input: ApproveInput,
    claim?: ClaimKey,
  ): Promise<repo.PresentationRow> {
    const ids = [...new Set(input.credential_ids)]
    // Two independent reads at once; the wallet check's answer matters only for an open request.
    const [{ entry, request }, held] = await Promise.all([
      this.inboxEntry(holderDid, requestId),
      inWallet(this.deps.db, holderDid, ids),
    ])
    if (entry.status !== 'pending') throw new ConflictError(`This request was already ${entry.status}`)
    this.assertOpen(request)
    const missing = ids.filter((id) => !held.has(id))
    if (missing.length)
      throw new ValidationError(`Not in your wallet: ${missing.join(', ')}`, {
        details: { field: 'credential_ids', missing },
      })
    checkEnvelope(this.deps.formats, input.presentation_jwt, holderDid, request)

    const now = this.deps.clock.now()
    const submitted = {
      id: `pres-${randomUUID()}`,
      request_id: request.id,
      prover_did: holderDid,
      verifier_did: request.verifier_did,
      presentation_type: request.presentation_type,
      credential_ids: ids,
      presentation_jwt: input.presentation_jwt,
      at: now,
    }
    const activity = {
      presentation_id: submitted.id,
      request_id: request.id,
      verifier_did: request.verifier_did,
      credential_ids: ids,
    }
    const callbackUrl = request.callback_url && this.deps.callbacks ? request.callback_url : undefined
    const store = async (db: Executor) => {
      const row = await repo.insertApproval(db, submitted, activity)
      if (!row) throw new ConflictError('This request was already answered')
      return row
    }
    try {
      // One statement closes the request and writes everything else (insertApproval); the key
      // and the callback's event join it in a transaction when there are any, so they exist
      // exactly when the answer does. The key goes first: a duplicate on another instance that
      // got this far waits on it and then replays this answer, rather than finding the request answered.
      const presentation =
        callbackUrl || claim
          ? await this.deps.db.transaction().execute(async (trx) => {
              await claimIn(trx, claim, submitted.id)
              const row = await store(trx)
              if (callbackUrl)
                await this.deps.callbacks!.enqueue(trx, {
                  url: callbackUrl,
                  type: 'presentation.submitted',
                  data: eventData(row),
                })
              return row
            })
          : await store(this.deps.db)
      // Only when an event was queued: a nudge costs the dispatcher a claim query.
      if (callbackUrl) this.deps.callbacks?.nudge()
      return presentation
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('This request was already answered')
      throw error
    }
  }

  /** The holder's own presentation (an Idempotency-Key replay of its approval). */
  async presentation(holderDid: string, id: string): Promise<repo.PresentationRow> {
    const found = await repo.findPresentation(this.deps.db, id)
    if (!found || found.prover_did !== holderDid)
      throw new NotFoundError('The presentation this Idempotency-Key created no longer exists')
    return found
  }

  /**
   * The holder declines. Its own inbox entry is answered; the request itself is closed only when
   * it is addressed to this holder. A request open to anyone stays open for others: one who
   * scanned it cannot close it for everyone (the verifier still hears of the rejection).
   */
  async reject(holderDid: string, requestId: string, reason: string | undefined): Promise<repo.InboxRow> {
    const { entry, request } = await this.inboxEntry(holderDid, requestId)
    if (entry.status !== 'pending') throw new ConflictError(`This request was already ${entry.status}`)
    const now = this.deps.clock.now()
    const answered = await this.deps.db.transaction().execute(async (trx) => {
      // The inbox entry first, as insertApproval does: a racing approve and reject queue on it
      // instead of deadlocking (PostgreSQL 40P01), and the loser finds it answered.
      const row = await repo.answerInboxEntry(trx, holderDid, request.id, {
        status: 'rejected',
        reason: reason ?? null,
        at: now,
      })
      if (!row) throw new ConflictError('This request was already answered')
      if (request.holder_did === holderDid && !(await repo.closeRequest(trx, request.id, 'rejected', now)))
        throw new ConflictError('This request was already answered')
      await recordActivity(trx, {
        holder_did: holderDid,
        type: 'presentation_rejected',
        details: { request_id: request.id, verifier_did: request.verifier_did },
        at: now,
      })
      if (request.callback_url && this.deps.callbacks) {
        await this.deps.callbacks.enqueue(trx, {
          url: request.callback_url,
          type: 'presentation.rejected',
          data: { request_id: request.id, holder_did: holderDid, reason: reason ?? null },
        })
      }
      return row
    })
    if (request.callback_url) this.deps.callbacks?.nudge()
    return answered
  }

  list(holderDid: string, page: { limit: number; after?: string }): Promise<repo.PresentationRow[]> {
    return repo.listPresentations(this.deps.db, { proverDid: holderDid }, page)
  }

  /** Pending and not past expires_at; answered or expired requests are 409. */
  private assertOpen(request: PresentationRequestRow): void {
    const status = this.deps.verifiers.effectiveStatus(request)
    if (status === 'expired') throw new ConflictError('The presentation request has expired')
    if (status !== 'pending') throw new ConflictError(`The presentation request is ${status}`)
  }
}

/** The QR payload (VerifierService.qrPayload) names the request it answers. */
function requestIdFromQr(data: string | undefined): string {
  try {
    const parsed = JSON.parse(data ?? '') as { type?: unknown; request_id?: unknown }
    if (parsed.type === 'presentation-request' && typeof parsed.request_id === 'string') return parsed.request_id
  } catch {
    // fall through
  }
  throw new ValidationError('qr_code_data is not a presentation-request QR payload', {
    details: { field: 'qr_code_data' },
  })
}

/**
 * The cheap checks the holder can fix at once, in its kind's words: the presentation (a VP-JWT, a
 * VP with a Data Integrity proof) is one, presented by this holder, for this verifier and nonce.
 * Its holder proof and credentials are checked when the verifier verifies.
 */
function checkEnvelope(
  formats: Pick<FormatRegistry, 'envelopeKind' | 'recognize'>,
  text: string,
  holderDid: string,
  request: PresentationRequestRow,
): void {
  const invalid = (why: string) =>
    new ValidationError(`presentation_jwt ${why}`, { details: { field: 'presentation_jwt' } })
  const opened = formats.envelopeKind(text).open(text, formats)
  if (isUnreadable(opened)) {
    throw invalid(
      opened.nesting
        ? `is refused: ${opened.nesting}`
        : 'is neither a compact JWS nor a presentation with a Data Integrity proof (eddsa-rdfc-2022, eddsa-jcs-2022)',
    )
  }
  const mismatch = opened.mismatch({ holder: holderDid, audience: request.verifier_did, nonce: request.nonce })
  if (mismatch) throw invalid(mismatch)
}

export function eventData(row: repo.PresentationRow): Record<string, unknown> {
  return {
    presentation_id: row.id,
    request_id: row.request_id,
    prover_did: row.prover_did,
    verifier_did: row.verifier_did,
    status: row.status,
    credential_ids: row.credential_ids,
  }
}
