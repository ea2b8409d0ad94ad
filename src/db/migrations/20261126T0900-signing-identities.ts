import { sql, type Kysely } from 'kysely'

/**
 * Issuers sign as DIDs whose own method publishes their keys (DESIGN.md "Issuer identity"):
 * a did:web hosted here at `/issuers/<web_id>/did.json` (default), service-generated did:keys,
 * or the issuer's own did:web. `issuer_signing_dids` maps every signing DID back to the login
 * DID of the spec's routes; credentials record the signing DID and their format beside
 * `issuer_did`, imported credentials their format. Existing rows: credentials signed before keep `signing_did` null (the login DID
 * signed them, docs/decisions.md "Issuer identity"); existing issuers get a web id.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table issuers add column signing_method text not null default 'web' check (signing_method in ('web', 'key', 'self'))`.execute(
    db,
  )
  await sql`alter table issuers add column web_id text`.execute(db)
  await sql`update issuers set web_id = replace(gen_random_uuid()::text, '-', '')`.execute(db)
  await sql`alter table issuers alter column web_id set not null`.execute(db)
  await sql`create unique index issuers_web_id_uq on issuers (web_id)`.execute(db)
  await sql`
    create table issuer_signing_dids (
      did text primary key,
      issuer_did text not null references issuers (did) on delete cascade,
      method text not null check (method in ('web', 'key', 'self')),
      key_type text,
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`create index issuer_signing_dids_issuer_idx on issuer_signing_dids (issuer_did)`.execute(db)
  await sql`alter table credentials add column format text not null default 'jwt_vc_json'`.execute(db)
  await sql`alter table credentials add column signing_did text`.execute(db)
  await sql`alter table wallet_imports add column format text not null default 'jwt_vc_json'`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table wallet_imports drop column if exists format`.execute(db)
  await sql`alter table credentials drop column if exists signing_did`.execute(db)
  await sql`alter table credentials drop column if exists format`.execute(db)
  await sql`drop table if exists issuer_signing_dids`.execute(db)
  await sql`drop index if exists issuers_web_id_uq`.execute(db)
  await sql`alter table issuers drop column if exists web_id`.execute(db)
  await sql`alter table issuers drop column if exists signing_method`.execute(db)
}
