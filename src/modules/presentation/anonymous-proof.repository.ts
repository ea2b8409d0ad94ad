import type { Executor } from '../../db/database.js'
import type { CredentialRow } from '../credentials/credentials.types.js'

/**
 * A credential in the holder's wallet (issued to it, not removed), with whether the holder
 * withdrew it (docs/wallet.md); undefined for anyone else's.
 */
export async function findHeldCredential(
  db: Executor,
  holderDid: string,
  credentialId: string,
): Promise<(CredentialRow & { withdrawn: boolean }) | undefined> {
  const row = await db
    .selectFrom('credentials as c')
    .selectAll('c')
    .select(({ exists, selectFrom }) =>
      exists(
        selectFrom('wallet_withdrawals as w')
          .select('w.credential_id')
          .whereRef('w.credential_id', '=', 'c.id')
          .where('w.holder_did', '=', holderDid),
      ).as('withdrawn'),
    )
    .where('c.id', '=', credentialId)
    .where('c.owner_did', '=', holderDid)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('wallet_removals as r')
            .select('r.credential_id')
            .whereRef('r.credential_id', '=', 'c.id')
            .where('r.holder_did', '=', holderDid),
        ),
      ),
    )
    .executeTakeFirst()
  return row && { ...row, withdrawn: Boolean(row.withdrawn) }
}
