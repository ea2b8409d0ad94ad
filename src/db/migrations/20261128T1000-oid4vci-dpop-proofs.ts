import { sql, type Kysely } from 'kysely'

/**
 * The DPoP proofs seen by the OpenID4VCI endpoints (docs/openid4vci.md "DPoP"): a proof's key
 * thumbprint and `jti`, hashed, kept while its `iat` is inside the accepted window, so a replay
 * is refused by every instance (RFC 9449 §11.1). Expired rows are swept by range.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table oid4vci_dpop_proofs (
      proof_digest text primary key,
      expires_at timestamptz not null
    )`.execute(db)
  await sql`create index oid4vci_dpop_proofs_expiry_idx on oid4vci_dpop_proofs (expires_at)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table oid4vci_dpop_proofs`.execute(db)
}
