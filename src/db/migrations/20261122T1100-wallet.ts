import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // Wallet-side removal of a credential (spec: DELETE only removes it from the wallet; the
  // issuer's record, the status list and the chain are untouched).
  await db.schema
    .createTable('wallet_removals')
    .addColumn('holder_did', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('removed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('wallet_removals_pk', ['holder_did', 'credential_id'])
    .execute()

  await db.schema
    .createTable('consents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('holder_did', 'text', (c) => c.notNull())
    .addColumn('verifier_did', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('data_categories', 'jsonb', (c) => c.notNull())
    .addColumn('access_level', 'text', (c) => c.notNull())
    .addColumn('expiration_policy', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz')
    .addColumn('revoked', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('revoked_at', 'timestamptz')
    // one_time_use: set by the one presentation that consumes it.
    .addColumn('used_at', 'timestamptz')
    .addColumn('used_by', 'text')
    .addColumn('on_chain', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('blockchain_tx', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('consents_holder_idx').on('consents').columns(['holder_did', 'id']).execute()
  await db.schema.createIndex('consents_verifier_idx').on('consents').columns(['verifier_did', 'holder_did']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('consents').ifExists().execute()
  await db.schema.dropTable('wallet_removals').ifExists().execute()
}
