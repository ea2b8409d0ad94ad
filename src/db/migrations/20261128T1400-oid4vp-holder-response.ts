import { sql, type Kysely } from 'kysely'

/**
 * A wallet's error response to an OpenID4VP request (OID4VP 1.0 §8.5, e.g. access_denied when the
 * holder declines): recorded once on the request, which it closes (docs/openid4vp.md "What
 * consumes a request"), so the verifier sees the refusal instead of waiting.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table oid4vp_requests drop constraint if exists oid4vp_requests_answer_check`.execute(db)
  await sql`alter table oid4vp_requests add constraint oid4vp_requests_answer_check check (answer in ('accepted', 'refused', 'declined'))`.execute(
    db,
  )
  await sql`alter table oid4vp_requests add column holder_error text, add column holder_error_description text`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table oid4vp_requests drop column if exists holder_error, drop column if exists holder_error_description`.execute(
    db,
  )
  await sql`alter table oid4vp_requests drop constraint if exists oid4vp_requests_answer_check`.execute(db)
  await sql`alter table oid4vp_requests add constraint oid4vp_requests_answer_check check (answer in ('accepted', 'refused'))`.execute(
    db,
  )
}
