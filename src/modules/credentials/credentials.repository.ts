import { sql } from 'kysely'
import type { Executor } from '../../db/database.js'
import { SET_STATUS_BIT_OF_REVOKED } from '../status-list/status-list.statements.js'
import type { CredentialFilter, CredentialRow, NewCredential } from './credentials.types.js'

/**
 * The stored columns of a new credential with their SQL types, as json_to_recordset reads them
 * (the generated ones, on_chain and blockchain_tx_hash, are left to their defaults).
 */
const NEW_CREDENTIAL_COLUMNS: Record<Exclude<keyof NewCredential, 'on_chain' | 'blockchain_tx_hash'>, string> = {
  id: 'text',
  issuer_did: 'text',
  owner_did: 'text',
  credential_type: 'text',
  schema_id: 'text',
  template_id: 'text',
  credential_preview: 'jsonb',
  credential_data: 'jsonb',
  status: 'text',
  signature_type: 'text',
  kyber_encrypted: 'boolean',
  evidence_attachments: 'jsonb',
  evidence_required: 'jsonb',
  extensions: 'jsonb',
  jwt: 'text',
  anonymous_credential: 'jsonb',
  bbs_signature: 'text',
  credential_hash: 'text',
  ipfs_hash: 'text',
  revocation_blockchain_tx: 'text',
  status_list_id: 'text',
  status_list_index: 'integer',
  request_id: 'text',
  expiration_date: 'timestamptz',
  revoked_at: 'timestamptz',
  revocation_reason: 'text',
  format: 'text',
  signing_did: 'text',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
}
const COLUMN_LIST = sql.raw(Object.keys(NEW_CREDENTIAL_COLUMNS).join(', '))
const RECORD_TYPE = sql.raw(
  Object.entries(NEW_CREDENTIAL_COLUMNS)
    .map(([name, type]) => `${name} ${type}`)
    .join(', '),
)

type GeneratedColumns = Pick<CredentialRow, 'id' | 'on_chain' | 'blockchain_tx_hash' | 'created_at' | 'updated_at'>

/**
 * Stores issued credentials with each holder's `credential_received` wallet activity
 * (docs/wallet.md) in one statement (data-modifying CTEs): atomic without a transaction, one
 * round trip for a whole batch of issuances (group commit). The batch travels as one JSON
 * parameter read by json_to_recordset, so the statement's text is the same whatever the batch's
 * size: prepared and planned once rather than once per size, and not rebuilt by the query builder
 * for every batch. Only the generated columns come back: the caller has the rest, and reading
 * back every JWT and JSON column costs decoding (and, on PGlite, copying across threads) for
 * nothing.
 */
export async function insertCredentialsWithActivity(db: Executor, rows: NewCredential[]): Promise<CredentialRow[]> {
  if (rows.length === 0) return []
  const generated = await sql<GeneratedColumns>`
    with inserted as (
      insert into credentials (${COLUMN_LIST})
      select ${COLUMN_LIST} from json_to_recordset(${JSON.stringify(rows)}::json) as r(${RECORD_TYPE})
      returning id, on_chain, blockchain_tx_hash, created_at, updated_at, owner_did, credential_type, issuer_did
    ), activity as (
      insert into wallet_activities (holder_did, type, credential_id, details, created_at)
      select owner_did, 'credential_received', id, jsonb_build_object('credential_type', credential_type, 'issuer_did', issuer_did), created_at
      from inserted where owner_did is not null
    )
    select id, on_chain, blockchain_tx_hash, created_at, updated_at from inserted`.execute(db)
  const byId = new Map(generated.rows.map((g) => [g.id, g]))
  return rows.map((row) => ({ ...row, ...byId.get(row.id)! }) as CredentialRow)
}

export function findIssuedCredential(db: Executor, issuerDid: string, id: string): Promise<CredentialRow | undefined> {
  return db
    .selectFrom('credentials')
    .selectAll()
    .where('id', '=', id)
    .where('issuer_did', '=', issuerDid)
    .executeTakeFirst()
}

export function findCredentialByCid(db: Executor, cid: string): Promise<CredentialRow | undefined> {
  return db.selectFrom('credentials').selectAll().where('ipfs_hash', '=', cid).executeTakeFirst()
}

export function listIssuedCredentials(
  db: Executor,
  issuerDid: string,
  filter: CredentialFilter,
  page: { limit: number; after?: string },
): Promise<CredentialRow[]> {
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
export async function markRevoked(
  db: Executor,
  issuerDid: string,
  id: string,
  reason: string | null,
  now: Date,
): Promise<CredentialRow | undefined> {
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

/** The holder (owner) of a credential issued here, by id; undefined for one issued elsewhere or to no DID. */
export async function findCredentialOwner(db: Executor, id: string): Promise<string | undefined> {
  return (
    (await db.selectFrom('credentials').select('owner_did').where('id', '=', id).executeTakeFirst())?.owner_did ??
    undefined
  )
}
