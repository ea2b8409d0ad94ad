import { sql } from 'kysely'
import type { Executor } from '../../db/database.js'

export interface KeyRow {
  kid: string
  owner: string
  purpose: string
  algorithm: string
  public_key: Uint8Array
  private_key_enc: Uint8Array
  status: string
  created_at: Date
  retired_at: Date | null
}

export function findActive(db: Executor, owner: string, purpose: string): Promise<KeyRow | undefined> {
  return db
    .selectFrom('service_keys')
    .selectAll()
    .where('owner', '=', owner)
    .where('purpose', '=', purpose)
    .where('status', '=', 'active')
    .executeTakeFirst()
}

export function findByKid(db: Executor, kid: string): Promise<KeyRow | undefined> {
  return db.selectFrom('service_keys').selectAll().where('kid', '=', kid).executeTakeFirst()
}

export function listByOwner(db: Executor, owner: string, purpose?: string): Promise<KeyRow[]> {
  let query = db.selectFrom('service_keys').selectAll().where('owner', '=', owner)
  if (purpose) query = query.where('purpose', '=', purpose)
  return query.orderBy('created_at', 'asc').execute()
}

export function listAll(db: Executor): Promise<KeyRow[]> {
  return db.selectFrom('service_keys').selectAll().orderBy('owner').orderBy('created_at').execute()
}

/** Inserts; returns false when another active key for (owner, purpose) already exists. */
export async function insertActive(
  db: Executor,
  row: Omit<KeyRow, 'created_at' | 'retired_at' | 'status'>,
): Promise<boolean> {
  const result = await db
    .insertInto('service_keys')
    .values({ ...row, status: 'active' })
    // A literal, not a parameter: PostgreSQL matches the arbiter to the partial unique index
    // service_keys_one_active by its predicate, which a prepared statement's generic plan
    // (src/db/prepared-statements.ts) could not do with `status = $n`.
    .onConflict((oc) => oc.columns(['owner', 'purpose']).where('status', '=', sql.lit('active')).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

export async function retire(db: Executor, kid: string, at: Date): Promise<void> {
  await db.updateTable('service_keys').set({ status: 'retired', retired_at: at }).where('kid', '=', kid).execute()
}
