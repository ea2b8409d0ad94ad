import { sql, type Kysely } from 'kysely'

/**
 * Whom a verifier trusts besides the issuers hosted here (docs/trust.md): its trust sources, one
 * row per verifier; and the X.509 roots one OpenID4VP request names besides them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table verifier_trust (
      verifier_did text primary key references verifiers(did) on delete cascade,
      sources jsonb not null,
      updated_at timestamptz not null
    )`.execute(db)
  await sql`alter table oid4vp_requests add column trusted_roots jsonb`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table oid4vp_requests drop column if exists trusted_roots`.execute(db)
  await sql`drop table if exists verifier_trust`.execute(db)
}
