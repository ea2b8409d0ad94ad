import { sql } from 'kysely'
import type { Executor } from '../../db/database.js'
import './idempotency.table.js'

export interface KeyScope {
  caller_did: string
  route: string
  key: string
}

export interface IdempotencyRecord extends KeyScope {
  fingerprint: string
  resource_id: string
  sealed_secret: Uint8Array | null
  created_at: Date
  expires_at: Date
}

/**
 * Records the key in the caller's transaction; false when a live record holds it already. One
 * statement, so a refusal changes nothing (the issuance guard's contract). An expired record is
 * replaced: past its lifetime the key is free again.
 */
export async function claimKey(db: Executor, record: IdempotencyRecord): Promise<boolean> {
  const row = await db
    .insertInto('idempotency_keys')
    .values(record)
    .onConflict((oc) =>
      oc
        .columns(['caller_did', 'route', 'key'])
        .doUpdateSet((eb) => ({
          fingerprint: eb.ref('excluded.fingerprint'),
          resource_id: eb.ref('excluded.resource_id'),
          sealed_secret: eb.ref('excluded.sealed_secret'),
          created_at: eb.ref('excluded.created_at'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        .where('idempotency_keys.expires_at', '<=', record.created_at),
    )
    .returning('key')
    .executeTakeFirst()
  return row !== undefined
}

/** The live record of a key, if any. */
export function findKey(
  db: Executor,
  scope: KeyScope,
  now: Date,
): Promise<{ fingerprint: string; resource_id: string; sealed_secret: Uint8Array | null } | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'resource_id', 'sealed_secret'])
    .where('caller_did', '=', scope.caller_did)
    .where('route', '=', scope.route)
    .where('key', '=', scope.key)
    .where('expires_at', '>', now)
    .executeTakeFirst()
}

/** Records past their lifetime, a bounded batch at a time; returns how many went. */
export async function deleteExpiredKeys(db: Executor, now: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where(
      sql<boolean>`(caller_did, route, key) in (select caller_did, route, key from idempotency_keys where expires_at <= ${now} limit ${limit})`,
    )
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
