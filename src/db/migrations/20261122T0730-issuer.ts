import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('issuers')
    .addColumn('did', 'text', (c) => c.primaryKey().references('users.did').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('website', 'text')
    .addColumn('logo_url', 'text')
    .addColumn('email', 'text')
    .addColumn('require_step_up', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  await db.schema
    .createTable('credential_schemas')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('issuer_did', 'text', (c) => c.notNull().references('issuers.did').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('attributes', 'jsonb', (c) => c.notNull())
    .addColumn('extensions_allowed', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('allowed_extensions', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('evidence_allowed', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('allowed_evidence', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('ipfs_hash', 'text', (c) => c.notNull())
    .addColumn('on_chain', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('blockchain_tx', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  // One (name, version) per issuer: a version label names one fixed attribute list.
  await db.schema
    .createIndex('credential_schemas_name_version')
    .unique()
    .on('credential_schemas')
    .columns(['issuer_did', 'name', 'version'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('credential_schemas').ifExists().execute()
  await db.schema.dropTable('issuers').ifExists().execute()
}
