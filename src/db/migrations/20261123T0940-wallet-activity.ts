import { sql, type Kysely } from 'kysely'

/**
 * The holder's side of the wallet (docs/wallet.md): credentials imported from elsewhere,
 * holder-side withdrawal, share links, evidence uploads and the append-only activity log.
 * Issued credentials stay in `credentials`; wallet rows never change the issuer's record.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // JWT-VCs imported by the holder after verification. `source_id` is the credential's own id
  // (`jti`, else a digest of the JWT): one import per issuer and id per wallet.
  await db.schema
    .createTable('wallet_imports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('holder_did', 'text', (c) => c.notNull())
    .addColumn('issuer_did', 'text', (c) => c.notNull())
    .addColumn('issuer_name', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('credential_type', 'text', (c) => c.notNull())
    .addColumn('schema_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('credential_preview', 'jsonb', (c) => c.notNull())
    .addColumn('credential_data', 'jsonb', (c) => c.notNull())
    .addColumn('evidence_attachments', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('extensions', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('jwt', 'text', (c) => c.notNull())
    .addColumn('credential_hash', 'text', (c) => c.notNull())
    .addColumn('ipfs_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'revoked')`))
    .addColumn('status_checked_at', 'timestamptz', (c) => c.notNull())
    .addColumn('issued_at', 'timestamptz')
    .addColumn('expiration_date', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('wallet_imports_source_uq', ['holder_did', 'issuer_did', 'source_id'])
    .execute()
  await db.schema.createIndex('wallet_imports_holder_idx').on('wallet_imports').columns(['holder_did', 'id']).execute()

  // Holder-side revocation: the holder withdraws a credential from use. The issuer's status is
  // not the holder's to change; this only stops the wallet from sharing or presenting it.
  await db.schema
    .createTable('wallet_withdrawals')
    .addColumn('holder_did', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('withdrawn_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('wallet_withdrawals_pk', ['holder_did', 'credential_id'])
    .execute()

  // Time-limited share links. Only a SHA-256 of the bearer token is stored, so the table does
  // not hand out live links to whoever reads it.
  await db.schema
    .createTable('wallet_shares')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('holder_did', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('purpose', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('max_uses', 'integer', (c) => c.check(sql`max_uses is null or max_uses > 0`))
    .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('wallet_shares_holder_idx').on('wallet_shares').columns(['holder_did', 'id']).execute()
  await db.schema
    .createIndex('wallet_shares_credential_idx')
    .on('wallet_shares')
    .columns(['holder_did', 'credential_id'])
    .execute()

  // Evidence files the holder uploaded (sealed to its ML-KEM key in the content store).
  await db.schema
    .createTable('wallet_evidence')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('holder_did', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('ipfs_hash', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('kyber_encrypted', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('wallet_evidence_holder_idx')
    .on('wallet_evidence')
    .columns(['holder_did', 'id'])
    .execute()

  // Append-only log of wallet events, written in the transaction of the event. The sequence
  // orders entries; nothing updates or deletes a row (the trigger refuses both).
  await db.schema
    .createTable('wallet_activities')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('holder_did', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text')
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('wallet_activities_holder_idx')
    .on('wallet_activities')
    .columns(['holder_did', 'id'])
    .execute()
  await sql`
    create function wallet_activities_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'wallet_activities is append-only';
    end
    $$
  `.execute(db)
  await sql`
    create trigger wallet_activities_append_only before update or delete on wallet_activities
      for each row execute function wallet_activities_append_only()
  `.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('wallet_activities').ifExists().execute()
  await sql`drop function if exists wallet_activities_append_only()`.execute(db)
  await db.schema.dropTable('wallet_evidence').ifExists().execute()
  await db.schema.dropTable('wallet_shares').ifExists().execute()
  await db.schema.dropTable('wallet_withdrawals').ifExists().execute()
  await db.schema.dropTable('wallet_imports').ifExists().execute()
}
