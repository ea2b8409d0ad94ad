import { sql, type Kysely } from 'kysely'

/**
 * credentials.ipfs_hash is only looked up by equality (the CID a verifier or the gateway names,
 * credentials.repository.ts findCredentialByCid), so a hash index serves it: it keeps a 4-byte
 * hash code per row where the B-tree kept the whole 59-character CID (docs/decisions.md,
 * "Storage per credential (issue 26)"). Hash indexes are WAL-logged and crash-safe since
 * PostgreSQL 10, on PGlite as on the server.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists credentials_ipfs_hash_idx`.execute(db)
  await sql`create index credentials_ipfs_hash_idx on credentials using hash (ipfs_hash)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists credentials_ipfs_hash_idx`.execute(db)
  await sql`create index credentials_ipfs_hash_idx on credentials (ipfs_hash)`.execute(db)
}
