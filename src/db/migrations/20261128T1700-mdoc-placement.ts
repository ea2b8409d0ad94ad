import { sql, type Kysely } from 'kysely'

/**
 * ISO/IEC 18013-5: the doctype and namespace a schema's mdocs carry (null: the schema has none),
 * and the country an issuer's mdoc certificates name (Annex B; null: the profile names none).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table credential_schemas add column mdoc jsonb`.execute(db)
  await sql`alter table issuers add column country text`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table credential_schemas drop column if exists mdoc`.execute(db)
  await sql`alter table issuers drop column if exists country`.execute(db)
}
