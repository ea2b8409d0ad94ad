import type { Database } from '../../db/database.js'
import type { BlockchainService } from './blockchain.service.js'

/** The `blockchain_verification` part of a presentation's verification (spec: on_chain, revoked, verified). */
export interface ChainVerification {
  on_chain: boolean
  revoked: boolean
  verified: boolean
}

/** Consults the registries for the credentials of a presentation (by credential id and issuer). */
export type ChainCredentialCheck = (
  presented: Array<{ id: string | null; issuer: string }>,
) => Promise<ChainVerification>

/**
 * Each presented credential issued here is looked up by id (its `credential_hash`) and checked
 * live against the credential registry. `on_chain`: every presented credential is anchored and
 * mined; `revoked`: any is revoked on chain; `verified`: both facts come from a live read of the
 * chain (not only from the service's records, as while the chain is unreachable) and none is
 * revoked. Credentials issued elsewhere are not in this service's registry: on_chain false.
 */
export function createChainCredentialCheck(
  db: Database,
  service: Pick<BlockchainService, 'checkCredential'>,
): ChainCredentialCheck {
  return async (presented) => {
    const ids = presented.map((p) => p.id).filter((id): id is string => id !== null)
    if (presented.length === 0 || ids.length === 0) return { on_chain: false, revoked: false, verified: false }
    const rows = await db
      .selectFrom('credentials')
      .select(['id', 'issuer_did', 'signing_did', 'credential_hash'])
      .where('id', 'in', ids)
      .execute()
    const views = await Promise.all(
      presented.map(async (p) => {
        // Presented under the DID that signed it; anchored under the issuer's login DID.
        const row = rows.find((r) => r.id === p.id && (r.signing_did ?? r.issuer_did) === p.issuer)
        // An unknown hash is a 404 from the check: not anchored.
        return row
          ? service.checkCredential(row.issuer_did, row.credential_hash, { live: true }).catch(() => undefined)
          : undefined
      }),
    )
    const onChain = views.every((v) => v?.on_chain === true)
    const revoked = views.some((v) => v?.revoked === true)
    return {
      on_chain: onChain,
      revoked,
      verified: onChain && !revoked && views.every((v) => v?.chain.verified_on_chain === true),
    }
  }
}
