import { sql, type Kysely } from 'kysely'

/**
 * An issuer's OpenID4VCI policy (docs/openid4vci.md "Issuer policy"), one row per issuer (none:
 * the defaults); and the pushed authorization requests (RFC 9126) waiting for their authorization request.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table oid4vci_policies (
      issuer_did text primary key references issuers(did) on delete cascade,
      par_required boolean not null,
      dpop_required boolean not null,
      dpop_nonce_required boolean not null,
      wallet_attestation_required boolean not null,
      key_attestation_required boolean not null,
      trusted_wallet_providers jsonb not null,
      credential_response_encryption text not null,
      updated_at timestamptz not null
    )`.execute(db)
  await sql`
    create table oid4vci_pushed_requests (
      request_uri_digest text primary key,
      issuer_did text not null references issuers(did) on delete cascade,
      client_id text not null,
      parameters jsonb not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db)
  await sql`create index oid4vci_pushed_requests_expires on oid4vci_pushed_requests (expires_at)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists oid4vci_pushed_requests`.execute(db)
  await sql`drop table if exists oid4vci_policies`.execute(db)
}
