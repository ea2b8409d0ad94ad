import { randomInt } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import type { Database, Executor } from '../../db/database.js'
import { NotFoundError } from '../../errors.js'
import { claimIn, type ClaimKey } from '../idempotency/idempotency.service.js'
import type { VerifierService } from '../verifier/verifier.service.js'
import { qrSvgDataUrl } from './qr-image.js'
import * as repo from './qr.repository.js'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
/** 10 base-62 characters: ~59.5 bits, so short ids cannot be enumerated. */
const SHORT_ID_LENGTH = 10

export interface QrCode {
  short_id: string
  short_url: string
  qr_code_data: string
  qr_image: string
  expires_at: string | null
}

/** The issuer's offers, as a QR code reaches them (the issuer module's offer service). */
export interface QrOffers {
  get(issuerDid: string, id: string): Promise<{ id: string; expires_at: Date | null }>
  qrPayload(offer: { id: string; expires_at: Date | null }): string
}

/**
 * QR codes for presentation requests and credential offers (DESIGN.md "QR"). The image encodes
 * the short URL (a small, easily scanned code); resolving it answers the full payload, which is
 * also returned as `qr_code_data` for wallets that take the payload directly.
 */
export class QrService {
  constructor(
    private readonly deps: {
      db: Database
      clock: Clock
      publicBaseUrl: string
      verifiers: VerifierService
      offers: QrOffers
    },
  ) {}

  /** Each call stores a new short id; `claim`: an Idempotency-Key recorded with it. */
  async forPresentationRequest(callerDid: string, requestId: string, claim?: ClaimKey): Promise<QrCode> {
    const request = await this.deps.verifiers.request(callerDid, requestId)
    return this.create(
      {
        kind: 'presentation-request',
        target_id: request.id,
        owner_did: callerDid,
        payload: this.deps.verifiers.qrPayload(request),
        expires_at: request.expires_at,
      },
      claim,
    )
  }

  async forCredentialOffer(callerDid: string, offerId: string, claim?: ClaimKey): Promise<QrCode> {
    const offer = await this.deps.offers.get(callerDid, offerId)
    return this.create(
      {
        kind: 'credential-offer',
        target_id: offer.id,
        owner_did: callerDid,
        payload: this.deps.offers.qrPayload(offer),
        expires_at: offer.expires_at,
      },
      claim,
    )
  }

  /** One of the caller's codes as its creation answered it (an Idempotency-Key replay). */
  async replay(callerDid: string, shortId: string): Promise<QrCode> {
    const found = await repo.findQr(this.deps.db, shortId)
    if (!found || found.owner_did !== callerDid)
      throw new NotFoundError('The QR code this Idempotency-Key created no longer exists')
    return this.view(found)
  }

  /** The payload behind a short id; unknown or past its target's expiry: 404. */
  async resolve(shortId: string): Promise<{ kind: string; payload: unknown; expires_at: string | null }> {
    const found = await repo.findQr(this.deps.db, shortId)
    if (!found || (found.expires_at && new Date(found.expires_at).getTime() <= this.deps.clock.now().getTime()))
      throw new NotFoundError('QR code not found or expired')
    return {
      kind: found.kind,
      payload: JSON.parse(found.payload),
      expires_at: found.expires_at && new Date(found.expires_at).toISOString(),
    }
  }

  private async create(
    code: Omit<repo.QrRow, 'short_id' | 'created_at'>,
    claim: ClaimKey | undefined,
  ): Promise<QrCode> {
    // With a key, the code and its key commit together; its short id is known once drawn, so the claim follows the insert.
    const row = claim
      ? await this.deps.db.transaction().execute(async (trx) => {
          const inserted = await insertWithFreshId(trx, code)
          await claimIn(trx, claim, inserted.short_id)
          return inserted
        })
      : await insertWithFreshId(this.deps.db, code)
    return this.view(row)
  }

  private async view(row: repo.QrRow): Promise<QrCode> {
    const shortUrl = `${this.deps.publicBaseUrl}/api/qr/resolve/${row.short_id}`
    return {
      short_id: row.short_id,
      short_url: shortUrl,
      qr_code_data: row.payload,
      qr_image: await qrSvgDataUrl(shortUrl),
      expires_at: row.expires_at && new Date(row.expires_at).toISOString(),
    }
  }
}

/** Draws short ids until one is free. */
async function insertWithFreshId(db: Executor, code: Omit<repo.QrRow, 'short_id' | 'created_at'>): Promise<repo.QrRow> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const shortId = Array.from({ length: SHORT_ID_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')
    const row = await repo.insertQr(db, { ...code, short_id: shortId })
    if (row) return row
  }
  throw new Error('could not draw a free short id')
}
