import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('credential_templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('issuer_did', 'text', (c) => c.notNull().references('issuers.did').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('credential_type', 'text', (c) => c.notNull())
    // RESTRICT: a schema a template still uses cannot be deleted (the service answers 409).
    .addColumn('schema_id', 'text', (c) => c.notNull().references('credential_schemas.id').onDelete('restrict'))
    .addColumn('fixed_attributes', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('validity_days', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('credential_templates_issuer_idx')
    .on('credential_templates')
    .columns(['issuer_did', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('credential_templates').ifExists().execute()
}
