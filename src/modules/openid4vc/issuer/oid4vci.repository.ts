import { sql, type Insertable, type Selectable } from 'kysely'
import type { Executor } from '../../../db/database.js'
import type { OfferRow } from '../../issuer/offers.types.js'
import type { Oid4vciAuthorizationCodesTable, Oid4vciGrantsTable, Oid4vciOffersTable } from './oid4vci.table.js'
import './oid4vci.table.js'
import { takeOfferUsesCte } from '../../issuer/offers.statements.js'

export type Oid4vciOfferRow = Selectable<Oid4vciOffersTable>
export type GrantRow = Selectable<Oid4vciGrantsTable>

export function insertOffer(
  db: Executor,
  row: Omit<Insertable<Oid4vciOffersTable>, 'tx_code_spec'> & { tx_code_spec: unknown },
): Promise<void> {
  return db
    .insertInto('oid4vci_offers')
    .values({ ...row, tx_code_spec: JSON.stringify(row.tx_code_spec) })
    .execute()
    .then(() => undefined)
}

export function findOfferByReference(db: Executor, reference: string): Promise<Oid4vciOfferRow | undefined> {
  return db.selectFrom('oid4vci_offers').selectAll().where('reference', '=', reference).executeTakeFirst()
}

export function findOffer(db: Executor, offerId: string): Promise<Oid4vciOfferRow | undefined> {
  return db.selectFrom('oid4vci_offers').selectAll().where('offer_id', '=', offerId).executeTakeFirst()
}

/** Counts a wrong tx_code against an unspent code; at `max` failures the code is spent. Answers whether it still stands. */
export async function recordTxCodeFailure(db: Executor, offerId: string, max: number, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('oid4vci_offers')
    .set((eb) => ({ tx_code_failures: eb('tx_code_failures', '+', 1) }))
    .where('offer_id', '=', offerId)
    .where('code_used_at', 'is', null)
    .returning('tx_code_failures')
    .executeTakeFirst()
  if (!row || row.tx_code_failures < max) return row !== undefined
  await db
    .updateTable('oid4vci_offers')
    .set({ code_used_at: now })
    .where('offer_id', '=', offerId)
    .where('code_used_at', 'is', null)
    .execute()
  return false
}

export function findUnspentCode(db: Executor, issuerDid: string, digest: string): Promise<Oid4vciOfferRow | undefined> {
  return db
    .selectFrom('oid4vci_offers')
    .selectAll()
    .where('pre_authorized_code_digest', '=', digest)
    .where('issuer_did', '=', issuerDid)
    .where('code_used_at', 'is', null)
    .executeTakeFirst()
}

/** What redeeming a pre-authorized code found: the code unspent, and whether the grant was made. */
export interface Redemption {
  codeFound: boolean
  granted: boolean
}

/**
 * Spends a pre-authorized code, takes one use of its offer and records the grant, all or nothing,
 * in one statement (no transaction held across round trips). Both rows are locked and their
 * conditions checked again under the lock (READ COMMITTED re-reads a row changed meanwhile) before
 * either is changed, so the two updates and the insert succeed together or not at all.
 */
export async function redeemPreAuthorizedCode(
  db: Executor,
  issuerDid: string,
  digest: string,
  grant: { id: string; dpopJkt: string | null; expiresAt: Date },
  now: Date,
): Promise<Redemption> {
  const result = await sql<{ code_found: boolean; granted: boolean }>`
    with code as (
      select offer_id from oid4vci_offers
      where pre_authorized_code_digest = ${digest} and issuer_did = ${issuerDid} and code_used_at is null
      for update
    ), offer as (
      select id from credential_offers
      where id in (select offer_id from code) and issuer_did = ${issuerDid} and status = 'active'
        and (expires_at is null or expires_at > ${now}) and (max_uses is null or uses < max_uses)
      for update
    ), spent as (
      update oid4vci_offers set code_used_at = ${now} where offer_id in (select id from offer) returning offer_id
    ), taken as (
      ${takeOfferUsesCte('spent', now)}
    ), granted as (
      insert into oid4vci_grants (id, offer_id, issuer_did, dpop_jkt, expires_at, used_at, holder_did, credential_ids, notification_id, transaction_id, request_id, holder_keys)
      select ${grant.id}, id, ${issuerDid}, ${grant.dpopJkt}, ${grant.expiresAt}, null, null, '[]'::jsonb, null, null, null, 'null'::jsonb from taken
      returning id
    )
    select exists (select 1 from code) as code_found, exists (select 1 from granted) as granted`.execute(db)
  const row = result.rows[0]!
  return { codeFound: row.code_found, granted: row.granted }
}

export function insertGrant(db: Executor, row: Insertable<Oid4vciGrantsTable>): Promise<void> {
  return db
    .insertInto('oid4vci_grants')
    .values(row)
    .execute()
    .then(() => undefined)
}

/** Gives the credential request back after an issuance that failed before anything was stored. */
export function releaseGrant(db: Executor, id: string): Promise<void> {
  return db
    .updateTable('oid4vci_grants')
    .set({ used_at: null })
    .where('id', '=', id)
    .execute()
    .then(() => undefined)
}

export function recordIssued(
  db: Executor,
  id: string,
  issued: { holder_did: string; credential_ids: string[]; notification_id: string },
): Promise<void> {
  return db
    .updateTable('oid4vci_grants')
    .set({
      holder_did: issued.holder_did,
      credential_ids: JSON.stringify(issued.credential_ids),
      notification_id: issued.notification_id,
    })
    .where('id', '=', id)
    .execute()
    .then(() => undefined)
}

export function recordDeferred(
  db: Executor,
  id: string,
  deferred: {
    holder_did: string
    transaction_id: string
    request_id: string
    holder_keys: Array<{ did: string; jwk: Record<string, unknown> }>
  },
): Promise<void> {
  return db
    .updateTable('oid4vci_grants')
    .set({
      holder_did: deferred.holder_did,
      transaction_id: deferred.transaction_id,
      request_id: deferred.request_id,
      holder_keys: JSON.stringify(deferred.holder_keys),
    })
    .where('id', '=', id)
    .execute()
    .then(() => undefined)
}

export function findGrantByTransaction(
  db: Executor,
  issuerDid: string,
  transactionId: string,
): Promise<GrantRow | undefined> {
  return db
    .selectFrom('oid4vci_grants')
    .selectAll()
    .where('issuer_did', '=', issuerDid)
    .where('transaction_id', '=', transactionId)
    .executeTakeFirst()
}

export function findGrantByNotification(
  db: Executor,
  issuerDid: string,
  notificationId: string,
): Promise<GrantRow | undefined> {
  return db
    .selectFrom('oid4vci_grants')
    .selectAll()
    .where('issuer_did', '=', issuerDid)
    .where('notification_id', '=', notificationId)
    .executeTakeFirst()
}

/** Marks `event` notified for the grant, once: false when it was already (a repeated notification). */
export async function takeNotificationEvent(db: Executor, grantId: string, event: string): Promise<boolean> {
  const events = JSON.stringify([event])
  const result = await sql<{ id: string }>`
    update oid4vci_grants set notified_events = notified_events || ${events}::jsonb
    where id = ${grantId} and not (notified_events @> ${events}::jsonb)
    returning id`.execute(db)
  return result.rows.length > 0
}

/** A grant with its OpenID4VCI offer and the issuer's spec offer, in one read. */
export interface GrantWithOffers {
  grant: GrantRow
  published: Pick<Oid4vciOfferRow, 'configuration_id' | 'requires_approval'> | undefined
  offer: OfferRow | undefined
}

const OFFER_COLUMNS = [
  'id',
  'issuer_did',
  'credential_type',
  'schema_id',
  'template_id',
  'attributes',
  'subject_did',
  'description',
  'max_uses',
  'uses',
  'status',
  'expires_at',
  'format',
  'created_at',
  'updated_at',
] as const

export async function findGrantWithOffers(db: Executor, id: string): Promise<GrantWithOffers | undefined> {
  const row = await db
    .selectFrom('oid4vci_grants as g')
    .leftJoin('oid4vci_offers as p', 'p.offer_id', 'g.offer_id')
    .leftJoin('credential_offers as o', (join) =>
      join.onRef('o.id', '=', 'g.offer_id').onRef('o.issuer_did', '=', 'g.issuer_did'),
    )
    .selectAll('g')
    .select(['p.configuration_id as p_configuration_id', 'p.requires_approval as p_requires_approval'])
    .select(OFFER_COLUMNS.map((c) => `o.${c} as o_${c}` as const))
    .where('g.id', '=', id)
    .executeTakeFirst()
  if (!row) return undefined
  const { p_configuration_id: configurationId, p_requires_approval: requiresApproval, ...rest } = row
  const grant: Record<string, unknown> = {}
  const offer: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(rest)) {
    if (key.startsWith('o_')) offer[key.slice(2)] = value
    else grant[key] = value
  }
  return {
    grant: grant as GrantRow,
    published:
      configurationId === null
        ? undefined
        : { configuration_id: configurationId, requires_approval: requiresApproval! },
    offer: offer.id === null ? undefined : (offer as OfferRow),
  }
}

/**
 * Takes the grant's one credential request and spends the c_nonce, all or nothing, in one
 * statement; `issued` is recorded against the grant in the same statement. The grant is locked
 * and checked first, so the nonce is spent only when the grant is too.
 */
export async function spendGrantAndNonce(
  db: Executor,
  spend: { grantId: string; issuerDid: string; nonceDigest: string; now: Date },
  issued?: { holder_did: string; credential_ids: string[]; notification_id: string },
): Promise<'spent' | 'grant used' | 'nonce refused'> {
  const { grantId, issuerDid, nonceDigest, now } = spend
  const record = issued
    ? sql`, holder_did = ${issued.holder_did}, credential_ids = ${JSON.stringify(issued.credential_ids)}::jsonb, notification_id = ${issued.notification_id}`
    : sql``
  const result = await sql<{ grant_found: boolean; spent: boolean }>`
    with g as (
      select id from oid4vci_grants where id = ${grantId} and used_at is null and expires_at > ${now} for update
    ), n as (
      update oid4vci_nonces set used_at = ${now}
      where nonce_digest = ${nonceDigest} and issuer_did = ${issuerDid} and used_at is null and expires_at > ${now} and exists (select 1 from g)
      returning 1
    ), u as (
      update oid4vci_grants set used_at = ${now}${record} where id in (select id from g) and exists (select 1 from n) returning 1
    )
    select exists (select 1 from g) as grant_found, exists (select 1 from u) as spent`.execute(db)
  const row = result.rows[0]!
  return row.spent ? 'spent' : row.grant_found ? 'nonce refused' : 'grant used'
}

export function findGrant(db: Executor, id: string): Promise<GrantRow | undefined> {
  return db.selectFrom('oid4vci_grants').selectAll().where('id', '=', id).executeTakeFirst()
}

export interface NonceRow {
  nonce_digest: string
  issuer_did: string
  expires_at: Date
}

export function insertNonces(db: Executor, rows: NonceRow[]): Promise<void> {
  return db
    .insertInto('oid4vci_nonces')
    .values(rows)
    .execute()
    .then(() => undefined)
}

export function deleteExpiredNonces(db: Executor, before: Date): Promise<void> {
  return db
    .deleteFrom('oid4vci_nonces')
    .where('expires_at', '<', before)
    .execute()
    .then(() => undefined)
}

/** Closes a deferred transaction once its credential is answered (OID4VCI 1.0 §9.3: a transaction_id is used once). */
export async function deliverDeferred(db: Executor, id: string, transactionId: string): Promise<boolean> {
  const row = await db
    .updateTable('oid4vci_grants')
    .set({ transaction_id: null })
    .where('id', '=', id)
    .where('transaction_id', '=', transactionId)
    .returning('id')
    .executeTakeFirst()
  return row !== undefined
}

export type AuthorizationCodeRow = Selectable<Oid4vciAuthorizationCodesTable>

export function findOfferByIssuerState(
  db: Executor,
  issuerDid: string,
  digest: string,
): Promise<Oid4vciOfferRow | undefined> {
  return db
    .selectFrom('oid4vci_offers')
    .selectAll()
    .where('issuer_state_digest', '=', digest)
    .where('issuer_did', '=', issuerDid)
    .executeTakeFirst()
}

export async function insertAuthorizationCode(
  db: Executor,
  row: Insertable<Oid4vciAuthorizationCodesTable>,
  now: Date,
): Promise<void> {
  await db.deleteFrom('oid4vci_authorization_codes').where('expires_at', '<', now).execute()
  await db.insertInto('oid4vci_authorization_codes').values(row).execute()
}

export function findAuthorizationCode(
  db: Executor,
  issuerDid: string,
  digest: string,
  now: Date,
): Promise<AuthorizationCodeRow | undefined> {
  return db
    .selectFrom('oid4vci_authorization_codes')
    .selectAll()
    .where('code_digest', '=', digest)
    .where('issuer_did', '=', issuerDid)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
}

/** Spends an authorization code, atomically: false when spent meanwhile. */
export async function spendAuthorizationCode(db: Executor, digest: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('oid4vci_authorization_codes')
    .set({ used_at: now })
    .where('code_digest', '=', digest)
    .where('used_at', 'is', null)
    .returning('code_digest')
    .executeTakeFirst()
  return row !== undefined
}

export function recordDelivered(db: Executor, id: string, credentialIds: string[]): Promise<void> {
  return db
    .updateTable('oid4vci_grants')
    .set({ credential_ids: JSON.stringify(credentialIds) })
    .where('id', '=', id)
    .execute()
    .then(() => undefined)
}
