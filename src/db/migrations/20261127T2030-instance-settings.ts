import { sql, type Kysely } from 'kysely'

/**
 * Settings every instance on one database must share (README "Several instances"),
 * recorded by the first instance to start; the others compare theirs at start.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('instance_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('instance_settings').execute()
}
