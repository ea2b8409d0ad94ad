import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('did', 'text', (c) => c.primaryKey())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('key_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('email', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('avatar_cid', 'text')
    .addColumn('avatar_content_type', 'text')
    .addColumn('bio', 'text')
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_login_at', 'timestamptz')
    .execute()

  // Challenges are stateless (MAC-bound to DID and expiry); only spent ones are stored, and
  // only until they would have expired anyway.
  await db.schema
    .createTable('auth_used_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('auth_used_challenges_expires_idx')
    .on('auth_used_challenges')
    .column('expires_at')
    .execute()

  await db.schema
    .createTable('rate_limit_counters')
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limit_counters_pk', ['bucket', 'window_start'])
    .execute()

  await db.schema
    .createTable('service_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('public_key', 'bytea', (c) => c.notNull())
    .addColumn('private_key_enc', 'bytea', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('retired_at', 'timestamptz')
    .execute()
  // At most one active key per owner and purpose; rotation retires the old one in the same
  // transaction.
  await sql`create unique index service_keys_one_active on service_keys (owner, purpose) where status = 'active'`.execute(
    db,
  )

  await db.schema
    .createTable('content_blocks')
    .addColumn('cid', 'text', (c) => c.primaryKey())
    .addColumn('data', 'bytea', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  await db.schema
    .createTable('wallets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('did', 'text', (c) => c.notNull().references('users.did').onDelete('cascade'))
    .addColumn('wallet_name', 'text', (c) => c.notNull())
    .addColumn('wallet_type', 'text', (c) => c.notNull())
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_login_at', 'timestamptz')
    .execute()
  await db.schema.createIndex('wallets_did_idx').on('wallets').column('did').execute()

  await db.schema
    .createTable('wallet_seeds')
    .addColumn('did', 'text', (c) => c.primaryKey().references('users.did').onDelete('cascade'))
    .addColumn('encrypted_seed', 'text', (c) => c.notNull())
    .addColumn('encryption', 'jsonb', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'wallet_seeds',
    'wallets',
    'content_blocks',
    'service_keys',
    'rate_limit_counters',
    'auth_used_challenges',
    'users',
  ]) {
    await db.schema.dropTable(table).ifExists().execute()
  }
}
