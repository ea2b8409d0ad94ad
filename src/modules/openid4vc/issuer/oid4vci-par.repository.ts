import type { Executor } from '../../../db/database.js'
import './oid4vci-policy.table.js'

export interface PushedRow {
  request_uri_digest: string
  issuer_did: string
  client_id: string
  parameters: Record<string, string>
  expires_at: Date
  used_at: Date | null
}

export async function insertPushedRequest(
  db: Executor,
  row: {
    request_uri_digest: string
    issuer_did: string
    client_id: string
    expires_at: Date
    parameters: Record<string, string>
  },
  now: Date,
): Promise<void> {
  // Expired requests go with each new one: they are never read again.
  await db.deleteFrom('oid4vci_pushed_requests').where('expires_at', '<=', now).execute()
  await db
    .insertInto('oid4vci_pushed_requests')
    .values({ ...row, parameters: JSON.stringify(row.parameters), used_at: null })
    .execute()
}

/** A live, unspent pushed request of the issuer. */
export async function findPushedRequest(
  db: Executor,
  issuerDid: string,
  digest: string,
  now: Date,
): Promise<PushedRow | undefined> {
  return db
    .selectFrom('oid4vci_pushed_requests')
    .selectAll()
    .where('request_uri_digest', '=', digest)
    .where('issuer_did', '=', issuerDid)
    .where('expires_at', '>', now)
    .where('used_at', 'is', null)
    .executeTakeFirst() as Promise<PushedRow | undefined>
}

/** Spends a pushed request once: false when it was spent (or expired) meanwhile. */
export async function spendPushedRequest(db: Executor, digest: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('oid4vci_pushed_requests')
    .set({ used_at: now })
    .where('request_uri_digest', '=', digest)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('request_uri_digest')
    .executeTakeFirst()
  return row !== undefined
}
