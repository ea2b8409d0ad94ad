import type { Executor } from '../../db/database.js'
import type { CredentialRow } from '../credentials/credentials.repository.js'

export type WalletCredentialRow = CredentialRow & { issuer_name: string }

/** Credentials issued to the holder that it has not removed from its wallet. */
export function listWalletCredentials(db: Executor, holderDid: string, filter: { status?: string; credential_type?: string }, page: { limit: number; after?: string }): Promise<WalletCredentialRow[]> {
  let query = db
    .selectFrom('credentials as c')
    .innerJoin('issuers as i', 'i.did', 'c.issuer_did')
    .selectAll('c')
    .select('i.name as issuer_name')
    .where('c.owner_did', '=', holderDid)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('wallet_removals as r').select('r.credential_id').whereRef('r.credential_id', '=', 'c.id').where('r.holder_did', '=', holderDid))),
    )
  if (filter.status) query = query.where('c.status', '=', filter.status)
  if (filter.credential_type) query = query.where('c.credential_type', '=', filter.credential_type)
  if (page.after) query = query.where('c.id', '>', page.after)
  return query.orderBy('c.id').limit(page.limit).execute()
}

/** True when the credential was in the wallet and is now removed from it. */
export async function removeFromWallet(db: Executor, holderDid: string, credentialId: string): Promise<boolean> {
  const result = await db
    .insertInto('wallet_removals')
    .columns(['holder_did', 'credential_id'])
    .expression((eb) =>
      eb
        .selectFrom('credentials')
        .select([eb.val(holderDid).as('holder_did'), 'id'])
        .where('id', '=', credentialId)
        .where('owner_did', '=', holderDid),
    )
    .onConflict((oc) => oc.columns(['holder_did', 'credential_id']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

/** Which of these ids are credentials in the holder's wallet (issued to it and not removed). */
export async function inWallet(db: Executor, holderDid: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db
    .selectFrom('credentials as c')
    .select('c.id')
    .where('c.owner_did', '=', holderDid)
    .where('c.id', 'in', ids)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('wallet_removals as r').select('r.credential_id').whereRef('r.credential_id', '=', 'c.id').where('r.holder_did', '=', holderDid))),
    )
    .execute()
  return new Set(rows.map((r) => r.id))
}
