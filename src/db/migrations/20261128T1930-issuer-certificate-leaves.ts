import { sql, type Kysely } from 'kysely'

/**
 * An issuer's chain gains leaves beside the mdoc Document Signer (docs/certificates.md): `credential`
 * certifies the key that signs its SD-JWT VCs (SD-JWT VC §3.5 `x5c`), `metadata` the key that signs
 * its OpenID4VCI metadata (OID4VCI 1.0 §12.2.3).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table issuer_certificates drop constraint if exists issuer_certificates_use_check`.execute(db)
  await sql`alter table issuer_certificates add constraint issuer_certificates_use_check
    check (use in ('iaca', 'document_signer', 'credential', 'metadata'))`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from issuer_certificates where use in ('credential', 'metadata')`.execute(db)
  await sql`alter table issuer_certificates drop constraint if exists issuer_certificates_use_check`.execute(db)
  await sql`alter table issuer_certificates add constraint issuer_certificates_use_check
    check (use in ('iaca', 'document_signer'))`.execute(db)
}
