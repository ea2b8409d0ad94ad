import type { Selectable } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { WalletSharesTable } from './wallet.table.js'

export type ShareRow = Selectable<WalletSharesTable>

export async function insertShare(
  db: Executor,
  row: Omit<ShareRow, 'uses' | 'revoked_at' | 'last_used_at'>,
): Promise<ShareRow> {
  return db.insertInto('wallet_shares').values(row).returningAll().executeTakeFirstOrThrow()
}

export function findShare(db: Executor, holderDid: string, id: string): Promise<ShareRow | undefined> {
  return db
    .selectFrom('wallet_shares')
    .selectAll()
    .where('id', '=', id)
    .where('holder_did', '=', holderDid)
    .executeTakeFirst()
}

export function listShares(
  db: Executor,
  holderDid: string,
  filter: { credential_id?: string; active_at?: Date },
  page: { limit: number; after?: string },
): Promise<ShareRow[]> {
  let query = db.selectFrom('wallet_shares').selectAll().where('holder_did', '=', holderDid)
  if (filter.credential_id) query = query.where('credential_id', '=', filter.credential_id)
  if (filter.active_at) {
    const at = filter.active_at
    query = query
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', at)
      .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
  }
  if (page.after) query = query.where('id', '>', page.after)
  return query.orderBy('id').limit(page.limit).execute()
}

/** Revoked now; undefined when it was already revoked (or is not the holder's). */
export function revokeShare(db: Executor, holderDid: string, id: string, now: Date): Promise<ShareRow | undefined> {
  return db
    .updateTable('wallet_shares')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('holder_did', '=', holderDid)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst()
}

/** Every live share of a credential the holder removed or withdrew stops working. */
export async function revokeSharesOf(
  db: Executor,
  holderDid: string,
  credentialId: string,
  now: Date,
): Promise<number> {
  const result = await db
    .updateTable('wallet_shares')
    .set({ revoked_at: now })
    .where('holder_did', '=', holderDid)
    .where('credential_id', '=', credentialId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/**
 * Takes one use of a live share in one statement (concurrent opens of a max_uses link cannot
 * overshoot); undefined when the token is unknown, revoked, expired or used up.
 */
export function useShare(db: Executor, tokenHash: string, now: Date): Promise<ShareRow | undefined> {
  return db
    .updateTable('wallet_shares')
    .set((eb) => ({ uses: eb('uses', '+', 1), last_used_at: now }))
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
    .returningAll()
    .executeTakeFirst()
}

/**
 * Shares that are active or expired now: numbers that change with time, counted along the
 * (holder, expires_at) index of unrevoked shares (the rest come from the statistics counters).
 */
export async function timedShareCounts(
  db: Executor,
  holderDid: string,
  now: Date,
): Promise<{ active: number; expired: number }> {
  const row = await db
    .selectFrom('wallet_shares')
    .select((eb) => [
      eb.fn
        .countAll<string>()
        .filterWhere((f) =>
          f.and([f('expires_at', '>', now), f.or([f('max_uses', 'is', null), f('uses', '<', f.ref('max_uses'))])]),
        )
        .as('active'),
      eb.fn.countAll<string>().filterWhere('expires_at', '<=', now).as('expired'),
    ])
    .where('holder_did', '=', holderDid)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow()
  return { active: Number(row.active), expired: Number(row.expired) }
}
