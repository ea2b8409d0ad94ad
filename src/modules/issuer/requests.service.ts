import { randomUUID } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import type { Transaction } from 'kysely'
import type { Database, DB } from '../../db/database.js'
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors.js'
import type { AuthService } from '../auth/auth.service.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import { normalizeDid } from '../did/did-normalize.js'
import { claimIn, type ClaimKey } from '../idempotency/idempotency.service.js'
import type { AttributeValidators } from './attribute-validator.js'
import type { IssuanceService } from './issuance.service.js'
import { findIssuer } from './issuer.repository.js'
import { takeOfferUse } from './offers.repository.js'
import { findSchema } from './schemas.repository.js'
import * as requests from './requests.repository.js'
import { recordActivity } from '../wallet/wallet-activity.js'

export interface CredentialRequestInput {
  issuer_did: string
  schema_id?: string
  offer_id?: string
  credential_type?: string
  attributes?: Record<string, unknown>
  message?: string
  format?: string
}

/** What a request asks for: as sent, or as its offer fixes it. */
interface AskedCredential {
  schemaId: string
  credentialType: string
  attributes: Record<string, unknown>
  format: string | null
}

/**
 * Holder credential requests and the issuer's decision (DESIGN.md "Credential requests and
 * offers"). Approval needs a fresh signature of a step-up challenge by the issuer's DID key and
 * issues the credential in the same transaction that marks the request approved, so a request is
 * approved at most once even when approvals race (the loser gets 409 and nothing is stored).
 */
export class CredentialRequestService {
  constructor(
    private readonly deps: {
      db: Database
      auth: AuthService
      issuance: IssuanceService
      validators: AttributeValidators
      clock: Clock
      formats: FormatRegistry
    },
  ) {}

  /**
   * Records the request; with an offer_id, takes one of the offer's uses. The use, the request,
   * its activity and the Idempotency-Key claim commit in one transaction: a refused request
   * (offer used up, expired or another holder's, a field the offer fixes otherwise) spends nothing.
   */
  async create(holderDid: string, input: CredentialRequestInput, claim?: ClaimKey): Promise<requests.RequestRow> {
    const issuerDid = normalizeDid(input.issuer_did)
    if (!(await findIssuer(this.deps.db, issuerDid)))
      throw new ValidationError(`Unknown issuer_did "${issuerDid}": no issuer profile`, {
        details: { field: 'issuer_did' },
      })
    // Checked now, not at approval: a request asks only for a format this service issues.
    if (input.format !== undefined) this.deps.formats.issuable(input.format)
    const now = this.deps.clock.now()
    const id = `request-${randomUUID()}`
    const direct = input.offer_id === undefined ? this.withoutOffer(input) : undefined
    return this.deps.db.transaction().execute(async (trx) => {
      const asked = direct ?? (await this.fromOffer(trx, issuerDid, holderDid, input.offer_id!, input, now))
      const schema = await findSchema(trx, issuerDid, asked.schemaId)
      if (!schema)
        throw new ValidationError(`Unknown schema_id "${asked.schemaId}" for this issuer`, {
          details: { field: 'schema_id' },
        })
      // The holder may leave required attributes to the issuer.
      this.deps.validators.check(schema, asked.attributes, true)
      await claimIn(trx, claim, id)
      const row = await requests.insertRequest(trx, {
        id,
        holder_did: holderDid,
        issuer_did: issuerDid,
        schema_id: schema.id,
        offer_id: input.offer_id ?? null,
        credential_type: asked.credentialType,
        attributes: asked.attributes,
        message: input.message ?? '',
        status: 'pending',
        format: asked.format,
      })
      await recordActivity(trx, {
        holder_did: holderDid,
        type: 'credential_request_created',
        details: {
          request_id: row.id,
          issuer_did: issuerDid,
          credential_type: asked.credentialType,
          offer_id: row.offer_id,
        },
        at: now,
      })
      return row
    })
  }

  /** The holder's request, as created (an Idempotency-Key replay). */
  async getForHolder(holderDid: string, id: string): Promise<requests.RequestRow> {
    const found = await requests.findRequestForHolder(this.deps.db, holderDid, id)
    if (!found) throw new NotFoundError('The credential request this Idempotency-Key created no longer exists')
    return found
  }

  listForHolder(
    holderDid: string,
    status: string | undefined,
    page: { limit: number; after?: string },
  ): Promise<requests.RequestRow[]> {
    return requests.listRequests(this.deps.db, { holder_did: holderDid, status }, page)
  }

  listForIssuer(
    issuerDid: string,
    status: string | undefined,
    page: { limit: number; after?: string },
  ): Promise<requests.RequestRow[]> {
    return requests.listRequests(this.deps.db, { issuer_did: issuerDid, status }, page)
  }

  async get(issuerDid: string, id: string): Promise<requests.RequestRow> {
    const found = await requests.findRequestForIssuer(this.deps.db, issuerDid, id)
    if (!found) throw new NotFoundError('Credential request not found')
    return found
  }

  /** A step-up challenge for the issuer DID, remembered on the request for the approval. */
  async approvalChallenge(
    callerDid: string,
    rawIssuerDid: string,
    id: string,
  ): Promise<{ challenge: string; expiresAt: Date }> {
    const issuerDid = this.assertIssuer(callerDid, rawIssuerDid)
    const request = await this.pending(issuerDid, id)
    const { challenge, expiresAt } = this.deps.auth.createChallenge(issuerDid, 'step-up')
    await requests.setApprovalChallenge(this.deps.db, request.id, challenge, this.deps.clock.now())
    return { challenge, expiresAt }
  }

  /** `claim` (an Idempotency-Key) is recorded, for the credential, in the transaction that issues it and decides the request. */
  async approve(
    callerDid: string,
    rawIssuerDid: string,
    id: string,
    input: { signature: string; challenge?: string; attributes?: Record<string, unknown>; expiration_date?: string },
    claim?: ClaimKey,
  ) {
    const issuerDid = this.assertIssuer(callerDid, rawIssuerDid)
    const request = await this.pending(issuerDid, id)
    const challenge = input.challenge ?? request.approval_challenge
    if (!challenge)
      throw new ValidationError('No approval challenge: GET .../challenge first, then sign it', {
        details: { field: 'signature' },
      })
    await this.deps.auth.proveControl({ did: issuerDid, challenge, signature: input.signature }, issuerDid)
    return this.deps.issuance.issue(
      issuerDid,
      {
        credential_type: request.credential_type,
        schema_id: request.schema_id,
        subject_did: request.holder_did,
        attributes: { ...request.attributes, ...input.attributes },
        ...(input.expiration_date ? { expiration_date: input.expiration_date } : {}),
        ...(request.format === null ? {} : { format: request.format }),
      },
      {
        requestId: request.id,
        steppedUp: true,
        within: async (trx, credential) => {
          await claimIn(trx, claim, credential.id)
          const decided = await requests.decideRequest(
            trx,
            request.id,
            { status: 'approved', credential_id: credential.id },
            this.deps.clock.now(),
          )
          if (!decided) throw new ConflictError('The request was decided meanwhile')
        },
      },
    )
  }

  /** The approval's credential as `approve` answered it (an Idempotency-Key replay). */
  replayApproval(issuerDid: string, credentialId: string) {
    return this.deps.issuance.replay(issuerDid, credentialId)
  }

  async reject(
    callerDid: string,
    rawIssuerDid: string,
    id: string,
    reason: string | undefined,
  ): Promise<requests.RequestRow> {
    const issuerDid = this.assertIssuer(callerDid, rawIssuerDid)
    await this.pending(issuerDid, id)
    const decided = await requests.decideRequest(
      this.deps.db,
      id,
      { status: 'rejected', reason: reason ?? null },
      this.deps.clock.now(),
    )
    if (!decided) throw new ConflictError('The request was decided meanwhile')
    return decided
  }

  private withoutOffer(input: CredentialRequestInput): AskedCredential {
    if (input.schema_id === undefined)
      throw new ValidationError('Either schema_id or offer_id is required', { details: { field: 'schema_id' } })
    if (input.credential_type === undefined)
      throw new ValidationError('credential_type is required without an offer', {
        details: { field: 'credential_type' },
      })
    return {
      schemaId: input.schema_id,
      credentialType: input.credential_type,
      attributes: input.attributes ?? {},
      format: input.format ?? null,
    }
  }

  /** Takes one use of the offer in `trx` and merges what it fixes; the caller's rollback gives the use back. */
  private async fromOffer(
    trx: Transaction<DB>,
    issuerDid: string,
    holderDid: string,
    offerId: string,
    input: CredentialRequestInput,
    now: Date,
  ): Promise<AskedCredential> {
    const offer = await takeOfferUse(trx, issuerDid, offerId, holderDid, now)
    if (!offer) throw new NotFoundError('Offer not found, expired, used up, or addressed to another holder')
    if (input.schema_id !== undefined && input.schema_id !== offer.schema_id)
      throw new ValidationError('schema_id differs from the offer')
    if (input.credential_type !== undefined && input.credential_type !== offer.credential_type)
      throw new ValidationError('credential_type differs from the offer')
    const format = input.format ?? null
    if (format !== null && offer.format !== null && format !== offer.format)
      throw new ValidationError(`format "${format}" differs from the offer's "${offer.format}"`, {
        details: { field: 'format' },
      })
    return {
      schemaId: offer.schema_id,
      credentialType: offer.credential_type,
      attributes: { ...input.attributes, ...offer.attributes },
      format: format ?? offer.format,
    }
  }

  private assertIssuer(callerDid: string, rawIssuerDid: string): string {
    const issuerDid = normalizeDid(rawIssuerDid)
    if (issuerDid !== callerDid) throw new ForbiddenError('The issuer DID in the path is not the authenticated DID')
    return issuerDid
  }

  private async pending(issuerDid: string, id: string): Promise<requests.RequestRow> {
    const request = await this.get(issuerDid, id)
    if (request.status !== 'pending') throw new ConflictError(`The request is already ${request.status}`)
    return request
  }
}
