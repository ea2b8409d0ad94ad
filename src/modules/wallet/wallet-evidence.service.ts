import { randomUUID } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import type { ContentStore } from '../../adapters/content-store/content-store.js'
import { asStoredEnvelope, type EnvelopeSealer } from '../../crypto/sealed-envelope.js'
import type { Database } from '../../db/database.js'
import {
  ConflictError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../errors.js'
import { claimIn, type ClaimKey } from '../idempotency/idempotency.service.js'
import { sniffEvidence } from './evidence-type.js'
import type { HolderKemKeys } from './holder-kem-keys.js'
import { recordActivity } from './wallet-activity.js'
import * as repo from './wallet-evidence.repository.js'

export interface EvidenceUpload {
  label: string
  filename: string
  declaredType: string
  bytes: Uint8Array
}

export interface EvidencePolicy {
  maxBytes: number
  allowedTypes: readonly string[]
}

/**
 * Evidence a holder uploads before asking for a credential (docs/wallet.md "Evidence"). The file
 * is sealed to the holder's ML-KEM-768 key (HPKE, sealed-envelope.ts) before it reaches the
 * content store (DESIGN.md principle 4: no personal data in clear on IPFS); `content_type` and
 * `size` describe the file inside the envelope. The result is the spec's evidence attachment, usable as is in an
 * issuance's `evidence` list.
 */
export class WalletEvidenceService {
  constructor(
    private readonly deps: {
      db: Database
      content: ContentStore
      sealer: EnvelopeSealer
      holderKeys: HolderKemKeys
      clock: Clock
      publicBaseUrl: string
      policy: EvidencePolicy
    },
  ) {}

  get policy(): EvidencePolicy {
    return this.deps.policy
  }

  /** Seals and stores the file; `claim` (an Idempotency-Key) commits with the record. */
  async upload(holderDid: string, file: EvidenceUpload, claim?: ClaimKey): Promise<repo.EvidenceRow> {
    const contentType = file.declaredType.split(';')[0]!.trim().toLowerCase()
    const allowed = this.deps.policy.allowedTypes
    if (!allowed.includes(contentType))
      throw new UnsupportedMediaTypeError(
        `Evidence of type ${contentType || '(none)'} is not accepted (allowed: ${allowed.join(', ')})`,
        { details: { allowed } },
      )
    if (file.bytes.length === 0) throw new ValidationError('The evidence file is empty', { details: { field: 'file' } })
    if (file.bytes.length > this.deps.policy.maxBytes) throw tooLarge(this.deps.policy.maxBytes)
    if (sniffEvidence(file.bytes, contentType) === 'mismatch')
      throw new UnsupportedMediaTypeError(`The file's content is not ${contentType}`, { details: { allowed } })

    const id = `evidence-${randomUUID()}`
    const recipient = await this.deps.holderKeys.recipient(holderDid)
    const envelope = await this.deps.sealer.seal({
      publicKey: recipient.publicKey,
      plaintext: file.bytes,
      binding: { recipient: holderDid, recordId: id },
    })
    const stored = await this.deps.content.put(Buffer.from(JSON.stringify(envelope)))
    const now = this.deps.clock.now()
    return this.deps.db.transaction().execute(async (trx) => {
      await claimIn(trx, claim, id)
      const row = await repo.insertEvidence(trx, {
        id,
        holder_did: holderDid,
        label: file.label,
        filename: file.filename,
        ipfs_hash: stored.cid,
        content_type: contentType,
        size: file.bytes.length,
        kyber_encrypted: true,
        created_at: now,
      })
      await recordActivity(trx, {
        holder_did: holderDid,
        type: 'evidence_uploaded',
        details: { evidence_id: id, label: row.label, content_type: row.content_type, size: row.size },
        at: now,
      })
      return row
    })
  }

  list(
    holderDid: string,
    filter: { label?: string },
    page: { limit: number; after?: string },
  ): Promise<repo.EvidenceRow[]> {
    return repo.listEvidence(this.deps.db, holderDid, filter, page)
  }

  async get(holderDid: string, id: string): Promise<repo.EvidenceRow> {
    const row = await repo.findEvidence(this.deps.db, holderDid, id)
    if (!row) throw new NotFoundError('Evidence not found')
    return row
  }

  /** The file in clear, for a holder whose key the service holds (custody `service`). */
  async download(holderDid: string, id: string): Promise<{ row: repo.EvidenceRow; bytes: Uint8Array }> {
    const row = await repo.findEvidence(this.deps.db, holderDid, id)
    if (!row) throw new NotFoundError('Evidence not found')
    const envelope = asStoredEnvelope(
      JSON.parse(Buffer.from(await this.deps.content.get(row.ipfs_hash)).toString('utf8')),
    )
    try {
      return { row, bytes: await this.deps.holderKeys.open(holderDid, envelope, id) }
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof ConflictError) {
        throw new ConflictError(
          'The evidence is sealed to your own key: open the envelope at gateway_url on your device',
          { cause: error },
        )
      }
      throw error
    }
  }

  attachment(row: repo.EvidenceRow) {
    return {
      label: row.label,
      filename: row.filename,
      ipfs_hash: row.ipfs_hash,
      gateway_url: `${this.deps.publicBaseUrl}/api/ipfs/${row.ipfs_hash}`,
      content_type: row.content_type,
      size: row.size,
    }
  }
}

export const tooLarge = (maxBytes: number) =>
  new PayloadTooLargeError(`The evidence file is larger than ${maxBytes} bytes`, { details: { max_bytes: maxBytes } })
