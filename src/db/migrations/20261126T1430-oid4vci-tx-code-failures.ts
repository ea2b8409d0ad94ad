import { sql, type Kysely } from 'kysely'

/**
 * Wrong transaction codes counted per offer (docs/openid4vci.md "Token endpoint"): a short
 * numeric tx_code must not be guessable by retrying, so a few wrong ones spend the code.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table oid4vci_offers add column tx_code_failures integer not null default 0`.execute(db)
}
