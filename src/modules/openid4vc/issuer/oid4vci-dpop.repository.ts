import type { Executor } from '../../../db/database.js'
import './oid4vci.table.js'

/**
 * Records a DPoP proof's key-and-jti digest until `expiresAt`, in one statement: true when it is
 * new (or only an expired row held it), false when a live row has it (a replay, RFC 9449 §11.1).
 * Concurrent requests with one proof meet at the primary key: one wins, the other sees the row.
 */
export async function spendDpopJti(db: Executor, digest: string, expiresAt: Date, now: Date): Promise<boolean> {
  const row = await db
    .insertInto('oid4vci_dpop_proofs')
    .values({ proof_digest: digest, expires_at: expiresAt })
    .onConflict((oc) =>
      oc
        .column('proof_digest')
        .doUpdateSet({ expires_at: expiresAt })
        .where('oid4vci_dpop_proofs.expires_at', '<=', now),
    )
    .returning('proof_digest')
    .executeTakeFirst()
  return row !== undefined
}

export function deleteExpiredDpopJtis(db: Executor, now: Date): Promise<void> {
  return db
    .deleteFrom('oid4vci_dpop_proofs')
    .where('expires_at', '<=', now)
    .execute()
    .then(() => undefined)
}
