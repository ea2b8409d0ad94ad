import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // When the issuer requires step-up, sensitive acts need an `authenticate` within a short window.
  await db.schema.alterTable('issuers').addColumn('step_up_at', 'timestamptz').execute()
  // A schema may opt out of BBS signing (JWT-VC only).
  await db.schema
    .alterTable('credential_schemas')
    .addColumn('anonymous_credentials', 'boolean', (c) => c.notNull().defaultTo(true))
    .execute()

  // W3C Bitstring Status List: one row per list of LIST_BITS entries, bits stored MSB-first as
  // the spec numbers them. Indexes are handed out in blocks (`next_counter`) and spread over the
  // list by a per-list affine permutation (`multiplier` odd, `offset`), so neighbouring
  // credentials do not get neighbouring indexes (Bitstring Status List §6.x, herd privacy).
  await db.schema
    .createTable('status_lists')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('issuer_did', 'text', (c) => c.notNull().references('issuers.did').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('multiplier', 'integer', (c) => c.notNull())
    .addColumn('offset', 'integer', (c) => c.notNull())
    .addColumn('next_counter', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bits', 'bytea', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('status_lists_issuer_idx')
    .on('status_lists')
    .columns(['issuer_did', 'purpose', 'created_at'])
    .execute()

  await db.schema
    .createTable('credentials')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('issuer_did', 'text', (c) => c.notNull().references('issuers.did').onDelete('cascade'))
    .addColumn('owner_did', 'text')
    .addColumn('credential_type', 'text', (c) => c.notNull())
    // RESTRICT: a schema with credentials issued under it cannot be deleted (409).
    .addColumn('schema_id', 'text', (c) => c.notNull().references('credential_schemas.id').onDelete('restrict'))
    .addColumn('template_id', 'text')
    .addColumn('credential_preview', 'jsonb', (c) => c.notNull())
    .addColumn('credential_data', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('signature_type', 'text', (c) => c.notNull())
    .addColumn('kyber_encrypted', 'boolean', (c) => c.notNull())
    .addColumn('evidence_attachments', 'jsonb', (c) => c.notNull())
    .addColumn('evidence_required', 'jsonb', (c) => c.notNull())
    .addColumn('extensions', 'jsonb', (c) => c.notNull())
    .addColumn('jwt', 'text', (c) => c.notNull())
    .addColumn('anonymous_credential', 'jsonb')
    .addColumn('bbs_signature', 'text')
    .addColumn('credential_hash', 'text', (c) => c.notNull())
    .addColumn('ipfs_hash', 'text', (c) => c.notNull())
    .addColumn('on_chain', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('blockchain_tx_hash', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('revocation_blockchain_tx', 'text')
    .addColumn('status_list_id', 'text', (c) => c.notNull().references('status_lists.id'))
    .addColumn('status_list_index', 'integer', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('expiration_date', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('revocation_reason', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('credentials_issuer_idx').on('credentials').columns(['issuer_did', 'id']).execute()
  await db.schema.createIndex('credentials_owner_idx').on('credentials').columns(['owner_did', 'id']).execute()
  await db.schema.createIndex('credentials_schema_idx').on('credentials').column('schema_id').execute()
  // One entry per status-list slot: a permutation bug could never make two credentials share a bit.
  await db.schema
    .createIndex('credentials_status_slot')
    .unique()
    .on('credentials')
    .columns(['status_list_id', 'status_list_index'])
    .execute()

  // The public half of each holder's ML-KEM-768 key; the private half stays in the key store
  // (custody 'service') or only with the holder (custody 'holder').
  await db.schema
    .createTable('holder_kem_keys')
    .addColumn('did', 'text', (c) => c.primaryKey())
    .addColumn('public_key', 'bytea', (c) => c.notNull())
    .addColumn('custody', 'text', (c) => c.notNull())
    .addColumn('kid', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  await db.schema
    .createTable('credential_offers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('issuer_did', 'text', (c) => c.notNull().references('issuers.did').onDelete('cascade'))
    .addColumn('credential_type', 'text', (c) => c.notNull())
    .addColumn('schema_id', 'text', (c) => c.notNull().references('credential_schemas.id').onDelete('restrict'))
    .addColumn('template_id', 'text')
    .addColumn('attributes', 'jsonb', (c) => c.notNull())
    .addColumn('subject_did', 'text')
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('max_uses', 'integer')
    .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('credential_offers_issuer_idx')
    .on('credential_offers')
    .columns(['issuer_did', 'id'])
    .execute()

  await db.schema
    .createTable('credential_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('holder_did', 'text', (c) => c.notNull())
    .addColumn('issuer_did', 'text', (c) => c.notNull().references('issuers.did').onDelete('cascade'))
    .addColumn('schema_id', 'text', (c) => c.notNull().references('credential_schemas.id').onDelete('restrict'))
    .addColumn('offer_id', 'text', (c) => c.references('credential_offers.id'))
    .addColumn('credential_type', 'text', (c) => c.notNull())
    .addColumn('attributes', 'jsonb', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('approval_challenge', 'text')
    .addColumn('credential_id', 'text')
    .addColumn('reason', 'text')
    .addColumn('decided_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('credential_requests_issuer_idx')
    .on('credential_requests')
    .columns(['issuer_did', 'id'])
    .execute()
  await db.schema
    .createIndex('credential_requests_holder_idx')
    .on('credential_requests')
    .columns(['holder_did', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['credential_requests', 'credential_offers', 'holder_kem_keys', 'credentials', 'status_lists']) {
    await db.schema.dropTable(table).ifExists().execute()
  }
  await db.schema.alterTable('credential_schemas').dropColumn('anonymous_credentials').execute()
  await db.schema.alterTable('issuers').dropColumn('step_up_at').execute()
}
