import { sql, type Kysely } from 'kysely'

/**
 * Imported credentials whose status is due for another look (docs/wallet.md "Status of imported
 * credentials"): the refresher takes the active ones checked longest ago. A revoked import
 * leaves the index (revocation is final).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index wallet_imports_status_due_idx on wallet_imports (status_checked_at, id) where status = 'active'`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists wallet_imports_status_due_idx`.execute(db)
}
