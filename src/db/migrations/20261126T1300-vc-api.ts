import { sql, type Kysely } from 'kysely'

/**
 * The W3C VC API beside the spec's routes (docs/vc-api.md): OAuth 2.0 clients of an issuer
 * profile (client credentials grant, RFC 6749 §4.4) and the opaque access tokens they obtain,
 * kept as SHA-256 digests; and the credentials issued through `/credentials/issue`, which name
 * no schema of the spec, with their status-list slot so `/credentials/status` can revoke them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table vc_api_clients (
      client_id text primary key,
      issuer_did text not null references issuers (did) on delete cascade,
      name text not null,
      secret_digest text not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )`.execute(db)
  await sql`create index vc_api_clients_issuer_idx on vc_api_clients (issuer_did, created_at)`.execute(db)
  await sql`
    create table vc_api_tokens (
      token_digest text primary key,
      client_id text not null references vc_api_clients (client_id) on delete cascade,
      expires_at timestamptz not null
    )`.execute(db)
  await sql`create index vc_api_tokens_expiry_idx on vc_api_tokens (expires_at)`.execute(db)
  await sql`
    create table vc_api_credentials (
      id text primary key,
      issuer_did text not null references issuers (did) on delete cascade,
      credential_id text,
      format text not null,
      credential text not null,
      signing_did text not null,
      status_list_id text references status_lists (id),
      status_list_index integer,
      revoked_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index vc_api_credentials_id_uq on vc_api_credentials (issuer_did, credential_id)`.execute(db)
  await sql`create unique index vc_api_credentials_slot_uq on vc_api_credentials (status_list_id, status_list_index)`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists vc_api_credentials`.execute(db)
  await sql`drop table if exists vc_api_tokens`.execute(db)
  await sql`drop table if exists vc_api_clients`.execute(db)
}
