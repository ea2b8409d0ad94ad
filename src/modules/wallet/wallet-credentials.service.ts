import { randomUUID } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import type { ContentStore } from '../../adapters/content-store/content-store.js'
import type { EnvelopeSealer } from '../../crypto/sealed-envelope.js'
import type { Database } from '../../db/database.js'
import { isUniqueViolation } from '../../db/pg-errors.js'
import { ConflictError, NotFoundError } from '../../errors.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import { claimIn, type ClaimKey } from '../idempotency/idempotency.service.js'
import type { DidResolver } from '../did/did-resolver.js'
import type { StatusChecker } from '../status-list/status-check.js'
import { checkImportedCredential, type CheckedCredential } from './credential-import-check.js'
import type { HolderKemKeys } from './holder-kem-keys.js'
import { recordActivity } from './wallet-activity.js'
import * as repo from './wallet-credentials.repository.js'
import { revokeSharesOf } from './wallet-shares.repository.js'
import { hostedDidForIssuerUrl } from '../did/jwt-vc-issuer.js'

export interface WalletCredentialDeps {
  db: Database
  content: ContentStore
  /** HPKE sealing of imported material to the holder's ML-KEM-768 key. */
  sealer: EnvelopeSealer
  holderKeys: HolderKemKeys
  resolver: DidResolver
  status: StatusChecker
  formats: FormatRegistry
  clock: Clock
  /** A hosted issuer's https identifier (SD-JWT VC `iss`) names its did:web under this base URL. */
  publicBaseUrl: string
  /** CLOCK_SKEW_SECONDS: leeway on the times of a credential from elsewhere. */
  skewSeconds: number
}

const PREVIEW_MAX = 5

/**
 * The holder's view of its credentials (spec: wallet listing): issued here or imported, removal
 * from the wallet, import of a JWT-VC from anywhere, and holder-side withdrawal (docs/wallet.md).
 */
export class WalletCredentialService {
  constructor(private readonly deps: WalletCredentialDeps) {}

  list(
    holderDid: string,
    filter: repo.WalletFilter,
    page: { limit: number; after?: string },
  ): Promise<repo.WalletCredentialRow[]> {
    return repo.listWalletCredentials(this.deps.db, holderDid, filter, page)
  }

  async get(holderDid: string, credentialId: string): Promise<repo.WalletCredentialRow> {
    const found = await repo.findWalletCredential(this.deps.db, holderDid, credentialId)
    if (!found) throw new NotFoundError('Credential not found in this wallet')
    return found
  }

  /** Removes the wallet's copy only: the issuer's record, its status and the chain stay as they are. */
  async remove(holderDid: string, credentialId: string): Promise<void> {
    const credential = await this.get(holderDid, credentialId)
    const now = this.deps.clock.now()
    await this.deps.db.transaction().execute(async (trx) => {
      if (!(await repo.removeFromWallet(trx, holderDid, credential)))
        throw new NotFoundError('Credential not found in this wallet')
      const sharesRevoked = await revokeSharesOf(trx, holderDid, credentialId, now)
      await recordActivity(trx, {
        holder_did: holderDid,
        type: 'credential_deleted',
        credential_id: credentialId,
        details: {
          credential_type: credential.credential_type,
          issuer_did: credential.issuer_did,
          source: credential.source,
          shares_revoked: sharesRevoked,
        },
        at: now,
      })
    })
  }

  /**
   * Holder-side revocation: the holder cannot change the issuer's status, so it withdraws the
   * credential from its own use. Live shares stop, and presentations refuse it from now on.
   */
  async withdraw(holderDid: string, credentialId: string, reason: string | null): Promise<repo.WalletCredentialRow> {
    const credential = await this.get(holderDid, credentialId)
    if (credential.withdrawn_at) throw new ConflictError('This credential is already withdrawn from the wallet')
    const now = this.deps.clock.now()
    await this.deps.db.transaction().execute(async (trx) => {
      if (
        !(await repo.insertWithdrawal(trx, {
          holder_did: holderDid,
          credential_id: credentialId,
          reason,
          withdrawn_at: now,
        }))
      ) {
        throw new ConflictError('This credential is already withdrawn from the wallet')
      }
      const sharesRevoked = await revokeSharesOf(trx, holderDid, credentialId, now)
      await recordActivity(trx, {
        holder_did: holderDid,
        type: 'credential_withdrawn',
        credential_id: credentialId,
        details: {
          credential_type: credential.credential_type,
          issuer_did: credential.issuer_did,
          shares_revoked: sharesRevoked,
        },
        at: now,
      })
    })
    return this.get(holderDid, credentialId)
  }

  /**
   * Verifies a JWT-VC and keeps it (docs/wallet.md "Import"). A credential issued here to this
   * holder and removed from the wallet comes back under its own id; one still in the wallet, or
   * imported before, is a 409. `claim` (an Idempotency-Key) commits with the import or restoration.
   * `received`: the credential was just fetched from its issuer (an OpenID4VCI acceptance); one
   * issued here to this holder is in its wallet already by that issuance, so it is answered, not a 409.
   */
  async import(
    holderDid: string,
    jwt: string,
    claim?: ClaimKey,
    options: { received?: boolean } = {},
  ): Promise<{ credential: repo.WalletCredentialRow; restored: boolean }> {
    const checked = await checkImportedCredential(
      {
        formats: this.deps.formats,
        resolver: this.deps.resolver,
        status: this.deps.status,
        now: this.deps.clock.now(),
        skewSeconds: this.deps.skewSeconds,
      },
      jwt,
      holderDid,
    )
    const now = this.deps.clock.now()
    const signingDid = hostedDidForIssuerUrl(this.deps.publicBaseUrl, checked.issuerDid) ?? checked.issuerDid
    const local = checked.jti ? await repo.findIssuedHere(this.deps.db, signingDid, checked.jti) : undefined
    if (local && local.owner_did === holderDid) {
      const restored = await this.deps.db.transaction().execute(async (trx) => {
        if (!(await repo.restoreToWallet(trx, holderDid, local.id))) return false
        await claimIn(trx, claim, local.id)
        await recordActivity(trx, {
          holder_did: holderDid,
          type: 'credential_imported',
          credential_id: local.id,
          details: activityDetails(checked, true),
          at: now,
        })
        return true
      })
      if (restored) return { credential: await this.get(holderDid, local.id), restored: true }
      if (!options.received)
        throw new ConflictError('This credential is already in your wallet', { details: { credential_id: local.id } })
      // Issuing it (OID4VCI 1.0 §8, to this holder's DID) stored it here under the holder: the key commits with that record.
      if (claim) await this.deps.db.transaction().execute((trx) => claimIn(trx, claim, local.id))
      return { credential: await this.get(holderDid, local.id), restored: false }
    }
    const existing = await repo.findImportBySource(this.deps.db, holderDid, checked.issuerDid, checked.sourceId)
    if (existing)
      throw new ConflictError('This credential is already in your wallet', { details: { credential_id: existing.id } })

    const id = `aly:${randomUUID()}`
    // The same sealed material as an issued credential (issuance.service.ts), so a holder's
    // client opens both the same way.
    const recipient = await this.deps.holderKeys.recipient(holderDid)
    const material = {
      format: 'credential-material/v1',
      id,
      jwt,
      credential_format: checked.format,
      anonymous_credential: null,
      credential_data: checked.attributes,
      evidence: [],
    }
    const envelope = await this.deps.sealer.seal({
      publicKey: recipient.publicKey,
      plaintext: Buffer.from(JSON.stringify(material)),
      binding: { recipient: holderDid, recordId: id },
    })
    const stored = await this.deps.content.put(Buffer.from(JSON.stringify(envelope)))
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        await claimIn(trx, claim, id)
        await repo.insertImport(trx, {
          id,
          holder_did: holderDid,
          issuer_did: checked.issuerDid,
          issuer_name: checked.issuerName ?? checked.issuerDid,
          source_id: checked.sourceId,
          credential_type: checked.credentialType,
          schema_id: checked.schemaId,
          credential_preview: preview(checked.attributes),
          credential_data: checked.attributes,
          evidence_attachments: [],
          extensions: checked.extensions,
          jwt,
          format: checked.format,
          credential_hash: checked.credentialHash,
          ipfs_hash: stored.cid,
          status: 'active',
          status_checked_at: now,
          issued_at: checked.issuedAt,
          expiration_date: checked.expiresAt,
          created_at: now,
        })
        await recordActivity(trx, {
          holder_did: holderDid,
          type: 'credential_imported',
          credential_id: id,
          details: activityDetails(checked, false),
          at: now,
        })
      })
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('This credential is already in your wallet')
      throw error
    }
    return { credential: await this.get(holderDid, id), restored: false }
  }

  /** The answer of an import, rebuilt from the wallet (an Idempotency-Key replay): one issued here came back restored. */
  async replayImport(
    holderDid: string,
    credentialId: string,
  ): Promise<{ credential: repo.WalletCredentialRow; restored: boolean }> {
    const credential = await repo.findWalletCredential(this.deps.db, holderDid, credentialId)
    if (!credential) throw new NotFoundError('The credential this Idempotency-Key imported is no longer in the wallet')
    return { credential, restored: credential.source === 'issued' }
  }
}

const activityDetails = (checked: CheckedCredential, restored: boolean) => ({
  credential_type: checked.credentialType,
  issuer_did: checked.issuerDid,
  restored,
})

/** The spec's `credential_preview`: the first few scalar attributes, in document order. */
function preview(attributes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(attributes)) {
    if (Object.keys(out).length >= PREVIEW_MAX) break
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) out[name] = value
  }
  return out
}

/** For the presentation module, which approves only these: the ids the holder may use. */
export { inWallet } from './wallet-credentials.repository.js'
export type { WalletCredentialRow } from './wallet-credentials.repository.js'
