import { sql, type Kysely } from 'kysely'

/**
 * Each verifier's access certificate chain (OID4VP 1.0 §5.9.3, docs/adr/0044-verifier-certificates.md):
 * its root and the access certificate whose key signs request objects, keys sealed in service_keys
 * (key_id). One active certificate per (verifier, use): the partial unique index settles
 * concurrent first uses. `chain`: the CA certificates between an imported access certificate and its root.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table verifier_certificates (
      id text primary key,
      verifier_did text not null,
      use text not null check (use in ('root', 'access')),
      pem text not null,
      chain jsonb not null default '[]',
      key_id text,
      not_before timestamptz not null,
      not_after timestamptz not null,
      status text not null check (status in ('active', 'retired')),
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index verifier_certificates_one_active on verifier_certificates (verifier_did, use) where status = 'active'`.execute(
    db,
  )
  await sql`create index verifier_certificates_verifier_idx on verifier_certificates (verifier_did, created_at)`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists verifier_certificates`.execute(db)
}
