import { sql, type Kysely } from 'kysely'

/** The callback outbox (DESIGN.md principle 5, "Callbacks"): signed webhooks, retried until delivered or dead. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('callback_outbox')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz')
    .addColumn('last_error', 'text')
    .addColumn('last_status', 'integer')
    .addColumn('last_attempt_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('delivered_at', 'timestamptz')
    .addUniqueConstraint('callback_outbox_event_id_key', ['event_id'])
    .addCheckConstraint('callback_outbox_status_check', sql`status in ('pending', 'delivered', 'dead')`)
    .execute()
  // The claim query: due pending rows in next_attempt_at order. Finished rows leave the index.
  await sql`create index callback_outbox_due_idx on callback_outbox (next_attempt_at) where status = 'pending'`.execute(
    db,
  )
  // The retention purge of finished rows.
  await sql`create index callback_outbox_finished_idx on callback_outbox (created_at) where status <> 'pending'`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('callback_outbox').ifExists().execute()
}
