import { sql, type Insertable } from 'kysely'
import type { EvidenceAttachment, Executor } from '../../db/database.js'
import type { WalletImportsTable } from './wallet.table.js'

/** One wallet entry, issued here or imported; the columns of the listing (spec: Credential). */
export interface WalletCredentialRow {
  id: string
  issuer_did: string
  issuer_name: string
  credential_type: string
  credential_preview: Record<string, unknown>
  credential_data: Record<string, unknown>
  ipfs_hash: string
  status: string
  signature_type: string
  evidence_attachments: EvidenceAttachment[]
  extensions: string[]
  owner_did: string
  schema_id: string
  credential_hash: string
  kyber_encrypted: boolean
  jwt: string
  anonymous_credential: Record<string, unknown> | null
  evidence_required: string[]
  expiration_date: Date | null
  created_at: Date
  source: 'issued' | 'imported'
  withdrawn_at: Date | null
  withdrawal_reason: string | null
}

export interface WalletFilter {
  status?: string
  credential_type?: string
}

/**
 * Every credential in the holder's wallet: the ones issued to it here and not removed, and the
 * ones it imported. Both carry `aly:<uuid>` ids, so one keyset orders the union.
 */
function walletCredentials(db: Executor, holderDid: string) {
  const { issued, imported } = walletCredentialSources(db, holderDid)
  return db.selectFrom(issued.unionAll(imported).as('u'))
}

function walletCredentialSources(db: Executor, holderDid: string) {
  const issued = db
    .selectFrom('credentials as c')
    .innerJoin('issuers as i', 'i.did', 'c.issuer_did')
    .leftJoin('wallet_withdrawals as w', (join) =>
      join.onRef('w.credential_id', '=', 'c.id').on('w.holder_did', '=', holderDid),
    )
    .select([
      'c.id',
      'c.issuer_did',
      'i.name as issuer_name',
      'c.credential_type',
      'c.credential_preview',
      'c.credential_data',
      'c.ipfs_hash',
      'c.status',
      'c.signature_type',
      'c.evidence_attachments',
      'c.extensions',
      sql<string>`c.owner_did`.as('owner_did'),
      'c.schema_id',
      'c.credential_hash',
      'c.kyber_encrypted',
      'c.jwt',
      'c.anonymous_credential',
      'c.evidence_required',
      'c.expiration_date',
      'c.created_at',
      sql<'issued' | 'imported'>`'issued'`.as('source'),
      'w.withdrawn_at',
      'w.reason as withdrawal_reason',
    ])
    .where('c.owner_did', '=', holderDid)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('wallet_removals as r')
            .select('r.credential_id')
            .whereRef('r.credential_id', '=', 'c.id')
            .where('r.holder_did', '=', holderDid),
        ),
      ),
    )
  const imported = db
    .selectFrom('wallet_imports as m')
    .leftJoin('issuers as i', 'i.did', 'm.issuer_did')
    .leftJoin('wallet_withdrawals as w', (join) =>
      join.onRef('w.credential_id', '=', 'm.id').on('w.holder_did', '=', holderDid),
    )
    .select([
      'm.id',
      'm.issuer_did',
      sql<string>`coalesce(i.name, m.issuer_name)`.as('issuer_name'),
      'm.credential_type',
      'm.credential_preview',
      'm.credential_data',
      'm.ipfs_hash',
      'm.status',
      sql<string>`'EdDSA'`.as('signature_type'),
      'm.evidence_attachments',
      'm.extensions',
      'm.holder_did as owner_did',
      'm.schema_id',
      'm.credential_hash',
      sql<boolean>`true`.as('kyber_encrypted'),
      'm.jwt',
      sql<Record<string, unknown> | null>`null::jsonb`.as('anonymous_credential'),
      sql<string[]>`'[]'::jsonb`.as('evidence_required'),
      'm.expiration_date',
      'm.created_at',
      sql<'issued' | 'imported'>`'imported'`.as('source'),
      'w.withdrawn_at',
      'w.reason as withdrawal_reason',
    ])
    .where('m.holder_did', '=', holderDid)
  return { issued, imported }
}

/**
 * One page: each source takes its own first `limit` rows after the cursor along its
 * (holder, id) index, and only those 2 x limit rows are merged, so a first page costs the same
 * whatever the holder holds (sorting the whole union first grew with the holder's count).
 */
export async function listWalletCredentials(
  db: Executor,
  holderDid: string,
  filter: WalletFilter,
  page: { limit: number; after?: string },
): Promise<WalletCredentialRow[]> {
  let { issued, imported } = walletCredentialSources(db, holderDid)
  if (filter.status) {
    issued = issued.where('c.status', '=', filter.status)
    imported = imported.where('m.status', '=', filter.status as WalletImportsTable['status'])
  }
  if (filter.credential_type) {
    issued = issued.where('c.credential_type', '=', filter.credential_type)
    imported = imported.where('m.credential_type', '=', filter.credential_type)
  }
  if (page.after) {
    issued = issued.where('c.id', '>', page.after)
    imported = imported.where('m.id', '>', page.after)
  }
  const rows = await db
    .selectFrom(issued.orderBy('c.id').limit(page.limit).as('a'))
    .selectAll()
    .unionAll(db.selectFrom(imported.orderBy('m.id').limit(page.limit).as('b')).selectAll())
    .orderBy('id')
    .limit(page.limit)
    .execute()
  return rows as WalletCredentialRow[]
}

export async function findWalletCredential(
  db: Executor,
  holderDid: string,
  id: string,
): Promise<WalletCredentialRow | undefined> {
  return (await walletCredentials(db, holderDid).selectAll().where('u.id', '=', id).executeTakeFirst()) as
    | WalletCredentialRow
    | undefined
}

/** Wallet-side removal only: an issued credential is hidden, an imported copy is deleted. */
export async function removeFromWallet(
  db: Executor,
  holderDid: string,
  credential: Pick<WalletCredentialRow, 'id' | 'source'>,
): Promise<boolean> {
  await db
    .deleteFrom('wallet_withdrawals')
    .where('holder_did', '=', holderDid)
    .where('credential_id', '=', credential.id)
    .execute()
  if (credential.source === 'imported') {
    const result = await db
      .deleteFrom('wallet_imports')
      .where('id', '=', credential.id)
      .where('holder_did', '=', holderDid)
      .executeTakeFirst()
    return Number(result.numDeletedRows) > 0
  }
  const result = await db
    .insertInto('wallet_removals')
    .values({ holder_did: holderDid, credential_id: credential.id })
    .onConflict((oc) => oc.columns(['holder_did', 'credential_id']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

/** Puts back a credential issued here that the holder had removed (re-import). */
export async function restoreToWallet(db: Executor, holderDid: string, credentialId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('wallet_removals')
    .where('holder_did', '=', holderDid)
    .where('credential_id', '=', credentialId)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** Whether a credential issued here to the holder has been removed from its wallet. */
export async function isRemoved(db: Executor, holderDid: string, credentialId: string): Promise<boolean> {
  const row = await db
    .selectFrom('wallet_removals')
    .select('credential_id')
    .where('holder_did', '=', holderDid)
    .where('credential_id', '=', credentialId)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * Which of these ids the holder may use: in its wallet (issued here and not removed, or
 * imported) and not withdrawn by the holder. The presentation module approves only these.
 */
export async function inWallet(db: Executor, holderDid: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await walletCredentials(db, holderDid)
    .select('u.id')
    .where('u.id', 'in', ids)
    .where('u.withdrawn_at', 'is', null)
    .execute()
  return new Set(rows.map((r) => r.id))
}

export type NewImport = Omit<
  Insertable<WalletImportsTable>,
  'credential_preview' | 'credential_data' | 'evidence_attachments' | 'extensions'
> & {
  credential_preview: Record<string, unknown>
  credential_data: Record<string, unknown>
  evidence_attachments: EvidenceAttachment[]
  extensions: string[]
}

export async function insertImport(db: Executor, row: NewImport): Promise<void> {
  await db
    .insertInto('wallet_imports')
    .values({
      ...row,
      credential_preview: JSON.stringify(row.credential_preview),
      credential_data: JSON.stringify(row.credential_data),
      evidence_attachments: JSON.stringify(row.evidence_attachments),
      extensions: JSON.stringify(row.extensions),
    })
    .execute()
}

export function findImportBySource(
  db: Executor,
  holderDid: string,
  issuerDid: string,
  sourceId: string,
): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('wallet_imports')
    .select('id')
    .where('holder_did', '=', holderDid)
    .where('issuer_did', '=', issuerDid)
    .where('source_id', '=', sourceId)
    .executeTakeFirst()
}

/** An imported credential whose issuer's status list is read again. */
export interface ImportDue {
  id: string
  holder_did: string
  issuer_did: string
  credential_type: string
  jwt: string
}

/**
 * Claims up to `limit` active imports last checked at or before `before`, oldest first, and
 * stamps them checked `at` in the same statement: another instance's round (SKIP LOCKED, then
 * the new stamp) does not take them too.
 */
export async function claimImportsDue(db: Executor, before: Date, at: Date, limit: number): Promise<ImportDue[]> {
  const result = await sql<ImportDue>`
    update wallet_imports w set status_checked_at = ${at}
    from (
      select id from wallet_imports
      where status = 'active' and status_checked_at <= ${before}
      order by status_checked_at, id
      limit ${limit}
      for update skip locked
    ) due
    where w.id = due.id
    returning w.id, w.holder_did, w.issuer_did, w.credential_type, w.jwt`.execute(db)
  return result.rows
}

/** active -> revoked (final); false when it was not active any more (marked already, or deleted). */
export async function markImportRevoked(db: Executor, id: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('wallet_imports')
    .set({ status: 'revoked', status_checked_at: at })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** A credential issued here with this id by this issuer, whoever holds it. */
export function findIssuedHere(
  db: Executor,
  issuerDid: string,
  id: string,
): Promise<{ id: string; owner_did: string | null; jwt: string } | undefined> {
  // Issued as the signing DID the credential names (the login DID for credentials before signing identities).
  return db
    .selectFrom('credentials')
    .select(['id', 'owner_did', 'jwt'])
    .where('id', '=', id)
    .where(sql<string>`coalesce(signing_did, issuer_did)`, '=', issuerDid)
    .executeTakeFirst()
}

/** False when already withdrawn. */
export async function insertWithdrawal(
  db: Executor,
  row: { holder_did: string; credential_id: string; reason: string | null; withdrawn_at: Date },
): Promise<boolean> {
  const result = await db
    .insertInto('wallet_withdrawals')
    .values(row)
    .onConflict((oc) => oc.columns(['holder_did', 'credential_id']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

/**
 * The holder's credentials past their `expiration_date`: a number that changes with time, so it
 * is counted along the (holder, expiration_date) indexes of both sources, over the expired rows only.
 */
export async function countExpired(db: Executor, holderDid: string, now: Date): Promise<number> {
  const row = await sql<{ n: string }>`
    select (select count(*) from credentials c where c.owner_did = ${holderDid} and c.expiration_date <= ${now}
              and not exists (select 1 from wallet_removals r where r.holder_did = ${holderDid} and r.credential_id = c.id))
         + (select count(*) from wallet_imports m where m.holder_did = ${holderDid} and m.expiration_date <= ${now}) as n`.execute(
    db,
  )
  return Number(row.rows[0]!.n)
}
