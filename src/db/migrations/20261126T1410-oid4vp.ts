import { sql, type Kysely } from 'kysely'

/**
 * OpenID for Verifiable Presentations 1.0 beside the spec's presentation requests (docs/openid4vp.md):
 * each verifier's service-hosted did:web (`/verifiers/<web_id>/did.json`, its keys in the key
 * store under that DID), and the OID4VP side of a presentation request: its client id, response
 * mode, its Authorization Request (the payload, the `openid4vp://` URI, and the signed request
 * object served at its request_uri), the key-store id of its ephemeral
 * ECDH-ES key (direct_post.jwt), and the wallet's answer once one arrived (answered once).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table verifier_web_dids (
      web_id text primary key,
      verifier_did text not null unique,
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`
    create table oid4vp_requests (
      request_id text primary key references presentation_requests (id) on delete cascade,
      client_id text not null,
      response_mode text not null check (response_mode in ('direct_post', 'direct_post.jwt')),
      state text not null,
      request_payload jsonb not null,
      authorization_request text not null,
      request_object text,
      encryption_kid text,
      redirect_uri text,
      answer text check (answer in ('accepted', 'refused')),
      presentation_id text,
      answered_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists oid4vp_requests`.execute(db)
  await sql`drop table if exists verifier_web_dids`.execute(db)
}
