import type { Transaction } from 'kysely'
import type { DB, RequiredCredential, RequiredPredicate } from '../../db/database.js'
import type { VerificationOutcome } from './presentation-verifier.js'

/** The consent state a verification consults (the consents module implements it). */
export interface ConsentPort {
  /**
   * `consent`: the holder's consent for this verifier and purpose that decides, valid or not;
   * undefined when the holder never granted one for that purpose. `reason` says why it is not
   * valid (revoked, expired, used).
   */
  check(
    holderDid: string,
    verifierDid: string,
    purpose: string,
    at: Date,
  ): Promise<{
    consent?: { id: string; expiration_policy: string; used_by?: string | null }
    valid: boolean
    reason?: string
  }>
  /** One-time consents: marks it used by this presentation; false when another got there first. */
  consume(trx: Transaction<DB>, consentId: string, presentationId: string, at: Date): Promise<boolean>
}

export type PresentationEvent =
  | 'presentation.submitted'
  | 'presentation.verified'
  | 'presentation.failed'
  | 'presentation.rejected'

/** Signed webhooks to a request's callback_url through the durable outbox (the callbacks module). */
export interface CallbackPort {
  enqueue(
    trx: Transaction<DB>,
    event: { url: string; type: PresentationEvent; data: Record<string, unknown> },
  ): Promise<string>
  /** After the transaction that enqueued committed: deliver soon rather than at the next poll. */
  nudge(): void
}

/** What the registries say of the presented credentials (the blockchain module), when a chain is configured. */
export type ChainCheckPort = (
  presented: Array<{ id: string | null; issuer: string }>,
) => Promise<{ on_chain: boolean; revoked: boolean; verified: boolean }>

/**
 * OpenID4VP answers (the openid4vp module): a presentation that came as a vp_token checked again
 * as it was on receipt (its client id, nonce and DCQL query); undefined for any other presentation.
 */
export interface Openid4vpRecheckPort {
  recheck(
    presentation: { id: string; request_id: string | null; presentation_jwt: string },
    request: { nonce: string; required_credentials: RequiredCredential[]; required_predicates: RequiredPredicate[] },
  ): Promise<VerificationOutcome | undefined>
}
