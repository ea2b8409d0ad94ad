import type { Clock } from '../../adapters/clock.js'
import type { Executor } from '../../db/database.js'
import { normalizeDid } from '../did/did-normalize.js'
import { batchValue, consentKey, credentialChainId, normalizeHash, schemaVersionKey } from './chain-keys.js'
import * as repo from './chain-outbox.repository.js'
import { batchLeaf } from './merkle.js'

/**
 * The port other modules anchor through (docs/blockchain.md "Using the anchor from a module").
 * Call `enqueue` inside the transaction of the state change it records, so the chain work
 * exists if and only if that change committed; call `nudge()` after the commit. With no chain
 * configured it writes nothing and answers `{ queued: false }`: the record keeps on_chain false.
 */
export type AnchorRequest =
  /** Queued for the next Merkle batch (many hashes, one transaction). */
  | { kind: 'credential'; issuerDid: string; credentialHash: string; credentialId?: string }
  | { kind: 'revocation'; issuerDid: string; credentialHash: string; credentialId?: string }
  | { kind: 'schema'; issuerDid: string; schemaId: string; schemaHash: string }
  | {
      kind: 'consent-grant'
      holderDid: string
      verifierDid: string
      purpose: string
      expiresAt?: Date | null
      consentId?: string
    }
  | { kind: 'consent-revoke'; holderDid: string; verifierDid: string; purpose: string; consentId?: string }

export interface ChainAnchor {
  /** Whether a chain is configured (BLOCKCHAIN_RPC_URL and the registry addresses). */
  readonly configured: boolean
  enqueue(trx: Executor, request: AnchorRequest): Promise<{ queued: boolean }>
  nudge(): void
}

export function createChainAnchor(options: {
  configured: boolean
  clock: Clock
  consentPepper: Uint8Array
  nudge: () => void
}): ChainAnchor {
  const { clock } = options
  return {
    configured: options.configured,
    nudge: options.nudge,
    async enqueue(trx, request) {
      if (!options.configured) return { queued: false }
      const now = clock.now()
      switch (request.kind) {
        case 'credential': {
          const issuer = normalizeDid(request.issuerDid)
          const hash = normalizeHash(request.credentialHash)
          await repo.insertLeaf(trx, {
            issuer_did: issuer,
            credential_hash: hash,
            credential_id: request.credentialId ?? null,
            leaf: batchLeaf(batchValue(issuer, hash)),
            created_at: now,
          })
          break
        }
        case 'revocation': {
          const issuer = normalizeDid(request.issuerDid)
          const hash = normalizeHash(request.credentialHash)
          await repo.insertJob(trx, {
            kind: 'credential-revoke',
            subject_id: request.credentialId ?? null,
            anchor_key: credentialChainId(issuer, hash),
            payload: { issuer_did: issuer, credential_hash: hash },
            created_at: now,
          })
          break
        }
        case 'schema': {
          const issuer = normalizeDid(request.issuerDid)
          const hash = normalizeHash(request.schemaHash, 'schema_hash')
          await repo.insertJob(trx, {
            kind: 'schema',
            subject_id: request.schemaId,
            anchor_key: schemaVersionKey(request.schemaId, hash),
            payload: { issuer_did: issuer, schema_id: request.schemaId, schema_hash: hash },
            created_at: now,
          })
          break
        }
        case 'consent-grant':
        case 'consent-revoke': {
          const { key } = consentKey(options.consentPepper, request)
          const expiresAt =
            request.kind === 'consent-grant' && request.expiresAt ? Math.floor(request.expiresAt.getTime() / 1000) : 0
          // Nothing to send when the chain holds (or will hold) this state already: a revocation
          // of a key never granted (the registry would revert) or already revoked, a grant with
          // the same end. A grant that records a consent is sent regardless: that consent's
          // blockchain_tx and on_chain follow it.
          const standing = await repo.latestJob(trx, key, ['consent-grant', 'consent-revoke'], { standing: true })
          const sameState =
            request.kind === 'consent-revoke'
              ? standing === undefined || standing.kind === 'consent-revoke'
              : request.consentId === undefined &&
                standing?.kind === 'consent-grant' &&
                Number(standing.payload.expires_at ?? 0) === expiresAt
          if (sameState) return { queued: false }
          await repo.insertJob(trx, {
            kind: request.kind,
            subject_id: request.consentId ?? null,
            anchor_key: key,
            payload:
              request.kind === 'consent-grant' ? { consent_key: key, expires_at: expiresAt } : { consent_key: key },
            created_at: now,
          })
          break
        }
      }
      return { queued: true }
    },
  }
}
