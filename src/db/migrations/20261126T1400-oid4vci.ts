import { sql, type Kysely } from 'kysely'

/**
 * OpenID for Verifiable Credential Issuance 1.0 beside the spec's offers (docs/openid4vci.md):
 * the OID4VCI side of an offer (its public reference, the hashed pre-authorized code and
 * tx_code, the credential configuration, DPoP and approval settings), the grants its token
 * endpoint hands out (one per access token: what the credential endpoint may issue, deferred
 * transactions and notification ids), the single-use c_nonces of the nonce endpoint, and the
 * authorization codes of the authorization code flow (PKCE, the holder signed in by DID).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table oid4vci_offers (
      offer_id text primary key references credential_offers (id) on delete cascade,
      issuer_did text not null references issuers (did) on delete cascade,
      reference text not null unique,
      configuration_id text not null,
      pre_authorized_code_digest text unique,
      code_used_at timestamptz,
      tx_code_digest text,
      tx_code_spec jsonb,
      issuer_state_digest text unique,
      dpop_required boolean not null default false,
      requires_approval boolean not null default false,
      batch_size integer not null default 1,
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`
    create table oid4vci_grants (
      id text primary key,
      offer_id text not null references credential_offers (id) on delete cascade,
      issuer_did text not null references issuers (did) on delete cascade,
      dpop_jkt text,
      expires_at timestamptz not null,
      used_at timestamptz,
      holder_did text,
      credential_ids jsonb not null default '[]',
      notification_id text unique,
      transaction_id text unique,
      request_id text,
      holder_keys jsonb,
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`create index oid4vci_grants_offer_idx on oid4vci_grants (offer_id)`.execute(db)
  await sql`
    create table oid4vci_nonces (
      nonce_digest text primary key,
      issuer_did text not null references issuers (did) on delete cascade,
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db)
  await sql`create index oid4vci_nonces_expiry_idx on oid4vci_nonces (expires_at)`.execute(db)
  await sql`
    create table oid4vci_authorization_codes (
      code_digest text primary key,
      offer_id text not null references credential_offers (id) on delete cascade,
      issuer_did text not null references issuers (did) on delete cascade,
      holder_did text not null,
      client_id text not null,
      redirect_uri text not null,
      code_challenge text not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db)
  await sql`create index oid4vci_authorization_codes_expiry_idx on oid4vci_authorization_codes (expires_at)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists oid4vci_authorization_codes`.execute(db)
  await sql`drop table if exists oid4vci_nonces`.execute(db)
  await sql`drop table if exists oid4vci_grants`.execute(db)
  await sql`drop table if exists oid4vci_offers`.execute(db)
}
