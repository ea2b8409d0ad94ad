import type { Kysely } from 'kysely'

/**
 * The part of a first answer that the service keeps nowhere else (a tx_code, a client secret),
 * sealed under the master key, so that a retry with the Idempotency-Key answers it again.
 * Deleted with its key when the key expires (docs/idempotency.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('sealed_secret', 'bytea').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').dropColumn('sealed_secret').execute()
}
