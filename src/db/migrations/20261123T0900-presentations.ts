import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // A holder's inbox: the presentation requests it took in (by id or QR payload) and its answer.
  await db.schema
    .createTable('holder_inbox')
    .addColumn('request_id', 'text', (c) => c.notNull().references('presentation_requests.id').onDelete('cascade'))
    .addColumn('holder_did', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('presentation_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('holder_inbox_pk', ['holder_did', 'request_id'])
    .execute()

  await db.schema
    .createTable('presentations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('request_id', 'text', (c) => c.references('presentation_requests.id').onDelete('set null'))
    .addColumn('prover_did', 'text', (c) => c.notNull())
    .addColumn('verifier_did', 'text', (c) => c.notNull())
    .addColumn('presentation_type', 'text', (c) => c.notNull())
    .addColumn('credential_ids', 'jsonb', (c) => c.notNull())
    .addColumn('presentation_jwt', 'text', (c) => c.notNull())
    // submitted → verified | failed (re-verifiable: a revocation turns verified into failed).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('is_verified', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('provided_attributes', 'jsonb', (c) => c.notNull())
    .addColumn('revoked_attributes', 'jsonb', (c) => c.notNull())
    .addColumn('verification_result', 'jsonb')
    .addColumn('consent_id', 'text')
    .addColumn('verified_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('presentations_verifier_idx')
    .on('presentations')
    .columns(['verifier_did', 'id'])
    .execute()
  await db.schema.createIndex('presentations_prover_idx').on('presentations').columns(['prover_did', 'id']).execute()
  // A request is answered by at most one presentation: concurrent approvals cannot both win.
  // GET /api/verifier/verify/ipfs/:ipfs_hash finds a credential by the CID of its stored material.
  await db.schema.createIndex('credentials_ipfs_hash_idx').on('credentials').column('ipfs_hash').execute()
  await db.schema.createIndex('presentations_request_once').unique().on('presentations').column('request_id').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('credentials_ipfs_hash_idx').ifExists().execute()
  await db.schema.dropTable('presentations').ifExists().execute()
  await db.schema.dropTable('holder_inbox').ifExists().execute()
}
