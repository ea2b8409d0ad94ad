import { randomInt } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'
import { NotFoundError } from '../../errors.js'
import type { OfferService } from '../issuer/offers.service.js'
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

/**
 * QR codes for presentation requests and credential offers (DESIGN.md "QR"). The image encodes
 * the short URL (a small, easily scanned code); resolving it answers the full payload, which is
 * also returned as `qr_code_data` for wallets that take the payload directly.
 */
export class QrService {
  constructor(private readonly deps: { db: Database; clock: Clock; publicBaseUrl: string; verifiers: VerifierService; offers: OfferService }) {}

  async forPresentationRequest(callerDid: string, requestId: string): Promise<QrCode> {
    const request = await this.deps.verifiers.request(callerDid, requestId)
    return this.create('presentation-request', request.id, callerDid, this.deps.verifiers.qrPayload(request), request.expires_at)
  }

  async forCredentialOffer(callerDid: string, offerId: string): Promise<QrCode> {
    const offer = await this.deps.offers.get(callerDid, offerId)
    return this.create('credential-offer', offer.id, callerDid, this.deps.offers.qrPayload(offer), offer.expires_at)
  }

  /** The payload behind a short id; unknown or past its target's expiry: 404. */
  async resolve(shortId: string): Promise<{ kind: string; payload: unknown; expires_at: string | null }> {
    const found = await repo.findQr(this.deps.db, shortId)
    if (!found || (found.expires_at && new Date(found.expires_at).getTime() <= this.deps.clock.now().getTime())) throw new NotFoundError('QR code not found or expired')
    return { kind: found.kind, payload: JSON.parse(found.payload), expires_at: found.expires_at && new Date(found.expires_at).toISOString() }
  }

  private async create(kind: string, targetId: string, ownerDid: string, payload: string, expiresAt: Date | null): Promise<QrCode> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const shortId = Array.from({ length: SHORT_ID_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')
      const row = await repo.insertQr(this.deps.db, { short_id: shortId, kind, target_id: targetId, owner_did: ownerDid, payload, expires_at: expiresAt })
      if (!row) continue
      const shortUrl = `${this.deps.publicBaseUrl}/api/qr/resolve/${shortId}`
      return { short_id: shortId, short_url: shortUrl, qr_code_data: payload, qr_image: await qrSvgDataUrl(shortUrl), expires_at: expiresAt && new Date(expiresAt).toISOString() }
    }
    throw new Error('could not draw a free short id')
  }
}
