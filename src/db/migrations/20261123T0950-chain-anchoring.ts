import { sql, type Kysely } from 'kysely'

/**
 * Chain anchoring (docs/blockchain.md): the durable outbox of chain transactions (DESIGN.md
 * principle 5) and the credential hashes waiting for, or anchored in, a Merkle batch.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('chain_jobs')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('kind', 'text', (c) => c.notNull())
    // What the transaction is about: the record id in its module (credential, schema, consent) if any.
    .addColumn('subject_id', 'text')
    // The on-chain key it writes (batch root, credential id, schema version, consent key), for look-ups.
    .addColumn('anchor_key', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz')
    .addColumn('last_error', 'text')
    .addColumn('tx_hash', 'text')
    .addColumn('block_number', 'bigint')
    .addColumn('gas_used', 'bigint')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('sent_at', 'timestamptz')
    .addColumn('mined_at', 'timestamptz')
    .addCheckConstraint('chain_jobs_status_check', sql`status in ('pending', 'sent', 'mined', 'failed')`)
    .addCheckConstraint(
      'chain_jobs_kind_check',
      sql`kind in ('batch', 'credential-revoke', 'schema', 'consent-grant', 'consent-revoke')`,
    )
    .execute()
  // The claim query: work that is due (to send, or whose receipt is due for a look).
  await sql`create index chain_jobs_due_idx on chain_jobs (next_attempt_at) where status in ('pending', 'sent')`.execute(
    db,
  )
  await sql`create index chain_jobs_anchor_key_idx on chain_jobs (anchor_key, id)`.execute(db)
  await sql`create index chain_jobs_subject_idx on chain_jobs (subject_id) where subject_id is not null`.execute(db)

  await db.schema
    .createTable('chain_credentials')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('issuer_did', 'text', (c) => c.notNull())
    // Lower-case hex SHA-256 without 0x, as in credentials.credential_hash.
    .addColumn('credential_hash', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text')
    .addColumn('leaf', 'text', (c) => c.notNull())
    .addColumn('batch_job_id', 'bigint', (c) => c.references('chain_jobs.id'))
    .addColumn('leaf_index', 'integer')
    // Sibling hashes from the leaf up to the batch root (sorted-pair Merkle tree).
    .addColumn('proof', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('chain_credentials_issuer_hash_key', ['issuer_did', 'credential_hash'])
    .execute()
  // The batcher's query: hashes not yet in a batch, oldest first.
  await sql`create index chain_credentials_unbatched_idx on chain_credentials (id) where batch_job_id is null`.execute(
    db,
  )
  await sql`create index chain_credentials_batch_idx on chain_credentials (batch_job_id)`.execute(db)
  await sql`create index chain_credentials_credential_idx on chain_credentials (credential_id) where credential_id is not null`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('chain_credentials').ifExists().execute()
  await db.schema.dropTable('chain_jobs').ifExists().execute()
}
