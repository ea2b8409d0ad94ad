import { randomUUID } from 'node:crypto'
import type { Transaction } from 'kysely'
import type { Clock } from '../../adapters/clock.js'
import type { Database, DB, Executor } from '../../db/database.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import { NotFoundError, ValidationError } from '../../errors.js'
import { claimIn, type ClaimKey } from '../idempotency/idempotency.service.js'
import { normalizeDid } from '../did/did-normalize.js'
import { qrSvgDataUrl } from '../qr/qr-image.js'
import type { AttributeValidators } from './attribute-validator.js'
import type { IssuerService } from './issuer.service.js'
import * as offers from './offers.repository.js'
import { findTemplate } from './templates.repository.js'
import { formatOfTemplate } from './templates.service.js'

/** The offer of an issuer, read in the caller's transaction or not (for the modules this one publishes through). */
export const findOffer = (db: Executor, issuerDid: string, id: string): Promise<offers.OfferRow | undefined> =>
  offers.findOffer(db, issuerDid, id)

export interface OfferInput {
  credential_type: string
  schema_id: string
  template_id?: string
  attributes?: Record<string, unknown>
  subject_did?: string
  description?: string
  max_uses?: number
  expires_at?: string
  format?: string
  /** OpenID4VCI (docs/openid4vci.md): ask the wallet for a transaction code with the pre-authorized code. */
  tx_code?: boolean | { length?: number; input_mode?: 'numeric' | 'text'; description?: string }
  /** OpenID4VCI: the credential endpoint records a credential request the issuer approves (deferred issuance). */
  requires_approval?: boolean
  /** OpenID4VCI: the access token must be DPoP-bound (RFC 9449). */
  dpop_required?: boolean
  /** OpenID4VCI: false offers the authorization code grant (the holder signs in) instead of a pre-authorized code. */
  pre_authorized?: boolean
}

/**
 * A standard protocol publishing the offer beside the spec's QR payload (OpenID4VCI): prepared
 * before the offer is stored, written in the transaction that stores it, and its fields added
 * to the creation's answer. Implemented outside this module, so the issuer module needs no import of it.
 */
export interface OfferPublication {
  prepare(offer: {
    issuerDid: string
    schemaId: string
    format: string | null
    input: OfferInput
  }): Promise<PreparedPublication | undefined>
  /** The fields `answer` added, again, from the stored offer and the prepared `secret` (an Idempotency-Key replay). */
  answerAgain(offer: offers.OfferRow, secret: unknown): Promise<Record<string, unknown>>
}

export interface PreparedPublication {
  store(trx: Transaction<DB>, offer: offers.OfferRow): Promise<void>
  /** Fields added to the creation's answer (shown once: they may carry secrets). */
  answer(offer: offers.OfferRow): Promise<Record<string, unknown>>
  /** What `answer` shows and the database keeps only as digests (JSON): sealed with an Idempotency-Key, for `answerAgain`. */
  secret: unknown
}

/**
 * Credential offers: an issuer announces a credential a holder may request (by scanning the
 * offer's QR payload); the holder answers with POST /api/wallet/credential-request {offer_id}.
 */
export class OfferService {
  constructor(
    private readonly deps: {
      db: Database
      issuers: IssuerService
      validators: AttributeValidators
      clock: Clock
      publicBaseUrl: string
      formats: FormatRegistry
      publication?: OfferPublication
    },
  ) {}

  /**
   * Creates the offer and, in the same transaction, its standard publication (OpenID4VCI) and
   * `claim` (an Idempotency-Key, for the offer's id, sealing what the publication shows once).
   */
  async create(
    issuerDid: string,
    input: OfferInput,
    claim?: ClaimKey,
  ): Promise<{ offer: offers.OfferRow; published: Record<string, unknown> }> {
    await this.deps.issuers.profile(issuerDid)
    let schema
    try {
      schema = await this.deps.issuers.schema(issuerDid, input.schema_id)
    } catch {
      throw new ValidationError(`Unknown schema_id "${input.schema_id}" for this issuer`, {
        details: { field: 'schema_id' },
      })
    }
    // Checked now, not when the offer is redeemed: an offer names only a format this service issues.
    if (input.format !== undefined) this.deps.formats.issuable(input.format)
    let format = input.format ?? null
    if (input.template_id !== undefined) {
      const template = await findTemplate(this.deps.db, issuerDid, input.template_id)
      if (!template)
        throw new ValidationError(`Unknown template_id "${input.template_id}" for this issuer`, {
          details: { field: 'template_id' },
        })
      if (template.schema_id !== schema.id) throw new ValidationError(`Template "${template.id}" is for another schema`)
      format = formatOfTemplate(template.format, format, template.id)
    }
    this.deps.validators.check(schema, input.attributes ?? {}, true)
    const now = this.deps.clock.now()
    const expiresAt = input.expires_at === undefined ? null : new Date(input.expires_at)
    if (expiresAt && expiresAt <= now)
      throw new ValidationError('expires_at must be in the future', { details: { field: 'expires_at' } })
    const prepared = await this.deps.publication?.prepare({ issuerDid, schemaId: schema.id, format, input })
    const row: offers.NewOffer = {
      id: `offer-${randomUUID()}`,
      issuer_did: issuerDid,
      credential_type: input.credential_type,
      schema_id: schema.id,
      template_id: input.template_id ?? null,
      attributes: input.attributes ?? {},
      subject_did: input.subject_did === undefined ? null : normalizeDid(input.subject_did),
      description: input.description ?? '',
      max_uses: input.max_uses ?? null,
      status: 'active',
      expires_at: expiresAt,
      format,
    }
    const offer =
      prepared || claim
        ? await this.deps.db.transaction().execute(async (trx) => {
            await claimIn(trx, claim, row.id, prepared?.secret)
            const inserted = await offers.insertOffer(trx, row)
            await prepared?.store(trx, inserted)
            return inserted
          })
        : await offers.insertOffer(this.deps.db, row)
    return { offer, published: prepared ? await prepared.answer(offer) : {} }
  }

  /** What `create` answered, from the stored offer and the secret its key sealed (undefined: no publication). */
  async replay(
    issuerDid: string,
    id: string,
    secret: unknown,
  ): Promise<{ offer: offers.OfferRow; published: Record<string, unknown> }> {
    const offer = await offers.findOffer(this.deps.db, issuerDid, id)
    if (!offer) throw new NotFoundError('The offer this Idempotency-Key created no longer exists')
    const published =
      secret === undefined || !this.deps.publication ? {} : await this.deps.publication.answerAgain(offer, secret)
    return { offer, published }
  }

  /**
   * Takes one use of the offer (uses, expiry, status, subject) in the caller's transaction: what
   * redeeming it through a standard protocol (OpenID4VCI's token endpoint) does. Undefined when it
   * cannot be used.
   */
  takeUse(db: Executor, issuerDid: string, id: string, holderDid: string): Promise<offers.OfferRow | undefined> {
    return offers.takeOfferUse(db, issuerDid, id, holderDid, this.deps.clock.now())
  }

  /** The offer of an issuer, read in the caller's transaction or not. */
  find(db: Executor, issuerDid: string, id: string): Promise<offers.OfferRow | undefined> {
    return findOffer(db, issuerDid, id)
  }

  list(issuerDid: string, page: { limit: number; after?: string }): Promise<offers.OfferRow[]> {
    return offers.listOffers(this.deps.db, issuerDid, page)
  }

  async get(issuerDid: string, id: string): Promise<offers.OfferRow> {
    const offer = await offers.findOffer(this.deps.db, issuerDid, id)
    if (!offer) throw new NotFoundError('Offer not found')
    return offer
  }

  /** What a wallet needs to act on the offer, as compact JSON for a QR code. */
  qrPayload(offer: offers.OfferRow): string {
    return JSON.stringify({
      type: 'credential-offer',
      version: 1,
      offer_id: offer.id,
      issuer_did: offer.issuer_did,
      credential_type: offer.credential_type,
      schema_id: offer.schema_id,
      request_url: `${this.deps.publicBaseUrl}/api/wallet/credential-request`,
      ...(offer.expires_at ? { expires_at: new Date(offer.expires_at).toISOString() } : {}),
    })
  }

  async qr(issuerDid: string, id: string): Promise<{ offer_id: string; qr_code_data: string; qr_image: string }> {
    const offer = await this.get(issuerDid, id)
    const payload = this.qrPayload(offer)
    return { offer_id: offer.id, qr_code_data: payload, qr_image: await qrSvgDataUrl(payload) }
  }
}
