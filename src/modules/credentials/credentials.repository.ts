import { sql, type Insertable, type Selectable } from 'kysely'
import type { CredentialsTable, Executor } from '../../db/database.js'
import { SET_STATUS_BIT_OF_REVOKED } from '../status-list/status-list.repository.js'

export type CredentialRow = Selectable<CredentialsTable>
export type NewCredential = Omit<Insertable<CredentialsTable>, 'credential_preview' | 'credential_data' | 'evidence_attachments' | 'evidence_required' | 'extensions' | 'anonymous_credential'> &
  Pick<CredentialRow, 'credential_preview' | 'credential_data' | 'evidence_attachments' | 'evidence_required' | 'extensions' | 'anonymous_credential'>

const toColumns = (c: NewCredential) => ({
  ...c,
  credential_preview: JSON.stringify(c.credential_preview),
  credential_data: JSON.stringify(c.credential_data),
  evidence_attachments: JSON.stringify(c.evidence_attachments),
  evidence_required: JSON.stringify(c.evidence_required),
  extensions: JSON.stringify(c.extensions),
  anonymous_credential: c.anonymous_credential === null ? null : JSON.stringify(c.anonymous_credential),
})

/**
 * Stores issued credentials with each holder's `credential_received` wallet activity
 * (docs/wallet.md) in one statement (data-modifying CTEs): atomic without a transaction, one
 * round trip for a whole batch of issuances (group commit). Only the generated columns come
 * back: the caller has the rest, and reading back every JWT and JSON column costs decoding
 * (and, on PGlite, copying across threads) for nothing.
 */
export async function insertCredentialsWithActivity(db: Executor, rows: NewCredential[]): Promise<CredentialRow[]> {
  if (rows.length === 0) return []
  const generated = await db
    .with('inserted', (qb) =>
      qb.insertInto('credentials').values(rows.map(toColumns)).returning(['id', 'on_chain', 'blockchain_tx_hash', 'created_at', 'updated_at', 'owner_did', 'credential_type', 'issuer_did']),
    )
    .with('activity', (qb) =>
      qb
        .insertInto('wallet_activities')
        .columns(['holder_did', 'type', 'credential_id', 'details', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom('inserted')
            .select([
              sql<string>`owner_did`.as('holder_did'),
              sql<string>`'credential_received'`.as('type'),
              'id',
              sql<string>`jsonb_build_object('credential_type', credential_type, 'issuer_did', issuer_did)`.as('details'),
              'created_at',
            ])
            .where('owner_did', 'is not', null),
        ),
    )
    .selectFrom('inserted')
    .select(['id', 'on_chain', 'blockchain_tx_hash', 'created_at', 'updated_at'])
    .execute()
  const byId = new Map(generated.map((g) => [g.id, g]))
  return rows.map((row) => ({ ...row, ...byId.get(row.id)! }) as CredentialRow)
}

export function findIssuedCredential(db: Executor, issuerDid: string, id: string): Promise<CredentialRow | undefined> {
  return db.selectFrom('credentials').selectAll().where('id', '=', id).where('issuer_did', '=', issuerDid).executeTakeFirst()
}

export function findCredentialByCid(db: Executor, cid: string): Promise<CredentialRow | undefined> {
  return db.selectFrom('credentials').selectAll().where('ipfs_hash', '=', cid).executeTakeFirst()
}

export interface CredentialFilter {
  status?: string
  credential_type?: string
  subject_did?: string
  schema_id?: string
}

export function listIssuedCredentials(db: Executor, issuerDid: string, filter: CredentialFilter, page: { limit: number; after?: string }): Promise<CredentialRow[]> {
  let query = db.selectFrom('credentials').selectAll().where('issuer_did', '=', issuerDid)
  if (filter.status) query = query.where('status', '=', filter.status)
  if (filter.credential_type) query = query.where('credential_type', '=', filter.credential_type)
  if (filter.subject_did) query = query.where('owner_did', '=', filter.subject_did)
  if (filter.schema_id) query = query.where('schema_id', '=', filter.schema_id)
  if (page.after) query = query.where('id', '>', page.after)
  return query.orderBy('id').limit(page.limit).execute()
}

/**
 * Revokes an active credential of this issuer, sets its status-list bit and writes the holder's
 * `credential_revoked` activity in one statement (a data-modifying CTE, so they change together
 * without a transaction of their own). Undefined when there is no such active credential
 * (unknown, another issuer's, or already revoked).
 */
export async function markRevoked(db: Executor, issuerDid: string, id: string, reason: string | null, now: Date): Promise<CredentialRow | undefined> {
  const result = await sql<CredentialRow>`
    with revoked as (
      update credentials set status = 'revoked', revoked_at = ${now}, revocation_reason = ${reason}, updated_at = ${now}
      where id = ${id} and issuer_did = ${issuerDid} and status = 'active'
      returning *
    ), status_bit as (${SET_STATUS_BIT_OF_REVOKED}),
    activity as (
      insert into wallet_activities (holder_did, type, credential_id, details, created_at)
      select owner_did, 'credential_revoked', id, jsonb_build_object('credential_type', credential_type, 'issuer_did', issuer_did, 'source', 'issued'), ${now}
      from revoked where owner_did is not null
    )
    select * from revoked`.execute(db)
  return result.rows[0]
}

export async function issuerCounts(db: Executor, issuerDid: string): Promise<{ byStatus: Record<string, number>; byType: Record<string, number> }> {
  const rows = await db
    .selectFrom('credentials')
    .select(['credential_type', 'status', sql<number>`count(*)`.as('n')])
    .where('issuer_did', '=', issuerDid)
    .groupBy(['credential_type', 'status'])
    .execute()
  const byStatus: Record<string, number> = {}
  const byType: Record<string, number> = {}
  for (const row of rows) {
    byStatus[row.status] = (byStatus[row.status] ?? 0) + Number(row.n)
    byType[row.credential_type] = (byType[row.credential_type] ?? 0) + Number(row.n)
  }
  return { byStatus, byType }
}
