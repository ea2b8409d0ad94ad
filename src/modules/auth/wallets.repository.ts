import type { Executor } from '../../db/database.js'

export interface WalletRow {
  id: string
  did: string
  wallet_name: string
  wallet_type: string
  metadata: Record<string, unknown>
  created_at: Date
  last_login_at: Date | null
}

export interface SeedRow {
  did: string
  encrypted_seed: string
  encryption: Record<string, unknown>
  version: number
  updated_at: Date
}

export function insertWallet(
  db: Executor,
  wallet: Omit<WalletRow, 'created_at' | 'last_login_at'>,
): Promise<WalletRow> {
  return db
    .insertInto('wallets')
    .values({ ...wallet, metadata: JSON.stringify(wallet.metadata) })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export function listWallets(db: Executor, did: string): Promise<WalletRow[]> {
  return db.selectFrom('wallets').selectAll().where('did', '=', did).orderBy('created_at').execute()
}

export function touchWallet(db: Executor, id: string, did: string, now: Date): Promise<WalletRow | undefined> {
  return db
    .updateTable('wallets')
    .set({ last_login_at: now })
    .where('id', '=', id)
    .where('did', '=', did)
    .returningAll()
    .executeTakeFirst()
}

export function countWallets(db: Executor, did: string): Promise<number> {
  return db
    .selectFrom('wallets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('did', '=', did)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n))
}

export function findSeed(db: Executor, did: string): Promise<SeedRow | undefined> {
  return db.selectFrom('wallet_seeds').selectAll().where('did', '=', did).executeTakeFirst()
}

/**
 * Writes the seed blob. Without `expectedVersion` only a first seed is written (a stored seed is
 * never replaced blindly); with it the write happens only if the stored version still matches
 * (optimistic concurrency: two devices, or a stolen token, cannot silently overwrite it).
 */
export async function upsertSeed(
  db: Executor,
  seed: { did: string; encrypted_seed: string; encryption: Record<string, unknown> },
  expectedVersion: number | undefined,
  now: Date,
): Promise<SeedRow | undefined> {
  const values = { ...seed, encryption: JSON.stringify(seed.encryption), updated_at: now }
  if (expectedVersion === undefined || expectedVersion === 0) {
    return db
      .insertInto('wallet_seeds')
      .values({ ...values, version: 1 })
      .onConflict((oc) => oc.column('did').doNothing())
      .returningAll()
      .executeTakeFirst()
  }
  return db
    .updateTable('wallet_seeds')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('did', '=', seed.did)
    .where('version', '=', expectedVersion)
    .returningAll()
    .executeTakeFirst()
}
