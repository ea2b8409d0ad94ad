import { sql, type Kysely } from 'kysely'

/**
 * A step-up belongs to the session (the token's jti) that performed it, with its own expiry: no
 * other token of the issuer's DID (a stolen one, a later login) inherits it. The per-DID time it
 * replaces is dropped, so no step-up taken before this migration counts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('issuer_step_ups')
    .addColumn('issuer_did', 'text', (c) => c.notNull().references('issuers.did').onDelete('cascade'))
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('stepped_up_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('issuer_step_ups_pkey', ['issuer_did', 'session_id'])
    .execute()
  await db.schema.alterTable('issuers').dropColumn('step_up_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('issuers').addColumn('step_up_at', 'timestamptz').execute()
  await sql`drop table if exists issuer_step_ups`.execute(db)
}
