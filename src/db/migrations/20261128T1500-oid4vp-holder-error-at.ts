import { sql, type Kysely } from 'kysely'

/**
 * When the last wallet error response (OID4VP 1.0 §8.5) reached a request. A request addressed to
 * no one keeps it without closing (docs/openid4vp.md "A wallet's error response"), so answered_at
 * cannot tell it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table oid4vp_requests add column holder_error_at timestamptz`.execute(db)
  await sql`update oid4vp_requests set holder_error_at = answered_at where holder_error is not null`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table oid4vp_requests drop column if exists holder_error_at`.execute(db)
}
