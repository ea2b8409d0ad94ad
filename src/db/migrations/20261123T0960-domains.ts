import { sql, type Kysely } from 'kysely'

/** Domain ownership (DESIGN.md "Domains", docs/domains.md): challenges and per-DID status. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('domain_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('did', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute()
  // The open challenge of a DID for a domain: the newest one.
  await db.schema
    .createIndex('domain_challenges_did_domain_idx')
    .on('domain_challenges')
    .columns(['did', 'domain', 'created_at'])
    .execute()

  await db.schema
    .createTable('domain_verifications')
    .addColumn('did', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('method', 'text')
    .addColumn('verified_at', 'timestamptz')
    .addColumn('valid_until', 'timestamptz')
    .addColumn('last_checked_at', 'timestamptz')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('domain_verifications_pkey', ['did', 'domain'])
    .addCheckConstraint('domain_verifications_status_check', sql`status in ('pending', 'verified', 'failed')`)
    .addCheckConstraint(
      'domain_verifications_method_check',
      sql`method is null or method in ('well_known', 'dns_txt', 'did_configuration')`,
    )
    .execute()
  // "Which DIDs are verified for this domain?"
  await db.schema.createIndex('domain_verifications_domain_idx').on('domain_verifications').column('domain').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['domain_verifications', 'domain_challenges'])
    await db.schema.dropTable(table).ifExists().execute()
}
