import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('verifiers')
    .addColumn('did', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('website', 'text')
    .addColumn('logo_url', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  await db.schema
    .createTable('presentation_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('verifier_did', 'text', (c) => c.notNull())
    .addColumn('presentation_type', 'text', (c) => c.notNull())
    .addColumn('required_credentials', 'jsonb', (c) => c.notNull())
    .addColumn('required_predicates', 'jsonb', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('callback_url', 'text')
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('preset_id', 'text')
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('presentation_requests_verifier_idx')
    .on('presentation_requests')
    .columns(['verifier_did', 'id'])
    .execute()

  await db.schema
    .createTable('verifier_presets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('verifier_did', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('presentation_type', 'text', (c) => c.notNull())
    .addColumn('required_credentials', 'jsonb', (c) => c.notNull())
    .addColumn('required_predicates', 'jsonb', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('callback_url', 'text')
    .addColumn('validity_seconds', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('verifier_presets_verifier_idx')
    .on('verifier_presets')
    .columns(['verifier_did', 'id'])
    .execute()

  // Short ids for QR codes: the code carries a short URL; resolving it answers the full payload.
  await db.schema
    .createTable('qr_codes')
    .addColumn('short_id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('owner_did', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['qr_codes', 'verifier_presets', 'presentation_requests', 'verifiers'])
    await db.schema.dropTable(table).ifExists().execute()
}
