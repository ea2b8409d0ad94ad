import { sql, type Kysely } from 'kysely'

/**
 * The mdoc certificates of issuer profiles (ISO/IEC 18013-5 Annex B, docs/certificates.md): the
 * IACA root and the Document Signer certificates, their keys sealed in service_keys (key_id). One
 * active certificate per (issuer, use): the partial unique index decides concurrent first uses.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table issuer_certificates (
      id text primary key,
      issuer_did text not null references issuers (did) on delete cascade,
      use text not null check (use in ('iaca', 'document_signer')),
      pem text not null,
      key_id text,
      not_before timestamptz not null,
      not_after timestamptz not null,
      status text not null check (status in ('active', 'retired')),
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index issuer_certificates_one_active on issuer_certificates (issuer_did, use) where status = 'active'`.execute(
    db,
  )
  await sql`create index issuer_certificates_issuer_idx on issuer_certificates (issuer_did, created_at)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists issuer_certificates`.execute(db)
}
