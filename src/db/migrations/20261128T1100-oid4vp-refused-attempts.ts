import { sql, type Kysely } from 'kysely'

/**
 * OpenID4VP responses refused without answering the request (docs/openid4vp.md "What consumes a
 * request"): the last few per request, for the verifier to see, and a count of all; the same
 * response posted again is one attempt (its hash is unique per request). And the index that names
 * the SD-JWT VC types (vct) of a credential type in a DCQL query: the schemas a type was issued under.
 * And the response_code of an accepted answer sent back in its redirect_uri (OID4VP 1.0 §8.2), its
 * SHA-256 only, redeemed once by the verifier.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table oid4vp_requests add column refused_count integer not null default 0`.execute(db)
  await sql`alter table oid4vp_requests add column response_code_hash text, add column response_code_redeemed_at timestamptz`.execute(
    db,
  )
  await sql`
    create table oid4vp_refused_attempts (
      id bigserial primary key,
      request_id text not null references oid4vp_requests (request_id) on delete cascade,
      response_hash text not null,
      holder text,
      holder_proof_verified boolean not null,
      errors jsonb not null,
      received_at timestamptz not null,
      unique (request_id, response_hash)
    )`.execute(db)
  await sql`create index credentials_schema_type_idx on credentials (schema_id, credential_type)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists credentials_schema_type_idx`.execute(db)
  await sql`drop table if exists oid4vp_refused_attempts`.execute(db)
  await sql`alter table oid4vp_requests drop column if exists refused_count`.execute(db)
  await sql`alter table oid4vp_requests drop column if exists response_code_hash, drop column if exists response_code_redeemed_at`.execute(
    db,
  )
}
