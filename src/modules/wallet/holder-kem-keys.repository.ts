import { sql } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { HolderKemKeysTable } from './holder-kem-keys.table.js'

export interface HolderKemKeyRow {
  did: string
  public_key: Uint8Array
  custody: HolderKemKeysTable['custody']
  kid: string | null
  updated_at: Date
}

export async function findHolderKemKey(db: Executor, did: string): Promise<HolderKemKeyRow | undefined> {
  const row = await db
    .selectFrom('holder_kem_keys')
    .select(['did', 'custody', 'kid', 'updated_at', sql<string>`encode(public_key, 'base64')`.as('public_key')])
    .where('did', '=', did)
    .executeTakeFirst()
  return row && { ...row, public_key: new Uint8Array(Buffer.from(row.public_key, 'base64')) }
}

/** Keeps an existing row: the first key written for a DID wins a race. */
export async function insertHolderKemKey(
  db: Executor,
  row: { did: string; public_key: Uint8Array; custody: 'service' | 'holder'; kid: string | null },
): Promise<void> {
  await db
    .insertInto('holder_kem_keys')
    .values(row)
    .onConflict((oc) => oc.column('did').doNothing())
    .execute()
}

/** The holder's own key replaces any earlier one for everything sealed from now on. */
export async function upsertHolderKemKey(
  db: Executor,
  row: { did: string; public_key: Uint8Array; custody: 'service' | 'holder'; kid: string | null },
  now: Date,
): Promise<void> {
  await db
    .insertInto('holder_kem_keys')
    .values({ ...row, updated_at: now })
    .onConflict((oc) =>
      oc.column('did').doUpdateSet({ public_key: row.public_key, custody: row.custody, kid: row.kid, updated_at: now }),
    )
    .execute()
}
