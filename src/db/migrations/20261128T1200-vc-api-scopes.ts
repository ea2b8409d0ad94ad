import { sql, type Kysely } from 'kysely'

/**
 * Scopes of the VC API's OAuth 2.0 clients and tokens (docs/vc-api.md "Scopes", RFC 6749 §3.3),
 * space-delimited. Clients and tokens from before could do everything, so they keep every
 * scope; new rows always name theirs (no default).
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['vc_api_clients', 'vc_api_tokens']) {
    await sql`alter table ${sql.table(table)} add column scope text not null default 'issue verify status'`.execute(db)
    await sql`alter table ${sql.table(table)} alter column scope drop default`.execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['vc_api_tokens', 'vc_api_clients'])
    await db.schema.alterTable(table).dropColumn('scope').execute()
}
