import { sql, type Kysely } from 'kysely'

/**
 * The credential format (docs/formats.md) on every issuance route besides issue: an offer, a
 * template and a holder's credential request may name one, and the credential issued from them
 * is in it. Null: the default (`jwt_vc_json`), as before formats; existing rows stay null.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table credential_offers add column format text`.execute(db)
  await sql`alter table credential_templates add column format text`.execute(db)
  await sql`alter table credential_requests add column format text`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table credential_requests drop column if exists format`.execute(db)
  await sql`alter table credential_templates drop column if exists format`.execute(db)
  await sql`alter table credential_offers drop column if exists format`.execute(db)
}
