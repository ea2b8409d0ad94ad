import { sql, type Kysely } from 'kysely'

/**
 * A presentation request may be addressed to one holder: only that holder takes it into an
 * inbox or answers it, and only its rejection closes the request. A request for no one stays
 * open to whoever scans it, and one holder's rejection answers only that holder's entry.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table presentation_requests add column holder_did text`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table presentation_requests drop column if exists holder_did`.execute(db)
}
