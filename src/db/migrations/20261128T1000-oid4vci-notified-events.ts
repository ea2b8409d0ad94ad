import { sql, type Kysely } from 'kysely'

/**
 * The notification events a grant's wallet has sent (docs/openid4vci.md "Notifications"): each
 * is recorded once, so repeating one cannot grow the holder's activity without bound.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table oid4vci_grants add column notified_events jsonb not null default '[]'`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table oid4vci_grants drop column notified_events`.execute(db)
}
