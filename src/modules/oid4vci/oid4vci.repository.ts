import type { Insertable, Selectable } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { Oid4vciAuthorizationCodesTable, Oid4vciGrantsTable, Oid4vciOffersTable } from './oid4vci.table.js'
import './oid4vci.table.js'

export type Oid4vciOfferRow = Selectable<Oid4vciOffersTable>
export type GrantRow = Selectable<Oid4vciGrantsTable>

export function insertOffer(db: Executor, row: Omit<Insertable<Oid4vciOffersTable>, 'tx_code_spec'> & { tx_code_spec: unknown }): Promise<void> {
  return db.insertInto('oid4vci_offers').values({ ...row, tx_code_spec: JSON.stringify(row.tx_code_spec) }).execute().then(() => undefined)
}

export function findOfferByReference(db: Executor, reference: string): Promise<Oid4vciOfferRow | undefined> {
  return db.selectFrom('oid4vci_offers').selectAll().where('reference', '=', reference).executeTakeFirst()
}

export function findOffer(db: Executor, offerId: string): Promise<Oid4vciOfferRow | undefined> {
  return db.selectFrom('oid4vci_offers').selectAll().where('offer_id', '=', offerId).executeTakeFirst()
}

/** Spends a pre-authorized code of the issuer, atomically: undefined when unknown or spent. */
export function spendPreAuthorizedCode(db: Executor, issuerDid: string, digest: string, now: Date): Promise<Oid4vciOfferRow | undefined> {
  return db
    .updateTable('oid4vci_offers')
    .set({ code_used_at: now })
    .where('pre_authorized_code_digest', '=', digest)
    .where('issuer_did', '=', issuerDid)
    .where('code_used_at', 'is', null)
    .returningAll()
    .executeTakeFirst()
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
  await db.updateTable('oid4vci_offers').set({ code_used_at: now }).where('offer_id', '=', offerId).where('code_used_at', 'is', null).execute()
  return false
}

export function findUnspentCode(db: Executor, issuerDid: string, digest: string): Promise<Oid4vciOfferRow | undefined> {
  return db.selectFrom('oid4vci_offers').selectAll().where('pre_authorized_code_digest', '=', digest).where('issuer_did', '=', issuerDid).where('code_used_at', 'is', null).executeTakeFirst()
}

export function insertGrant(db: Executor, row: Insertable<Oid4vciGrantsTable>): Promise<void> {
  return db.insertInto('oid4vci_grants').values(row).execute().then(() => undefined)
}

/** Takes the grant's one credential request, atomically: undefined when used or expired. */
export function useGrant(db: Executor, id: string, now: Date): Promise<GrantRow | undefined> {
  return db.updateTable('oid4vci_grants').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).where('expires_at', '>', now).returningAll().executeTakeFirst()
}

/** Gives the credential request back after an issuance that failed before anything was stored. */
export function releaseGrant(db: Executor, id: string): Promise<void> {
  return db.updateTable('oid4vci_grants').set({ used_at: null }).where('id', '=', id).execute().then(() => undefined)
}

export function recordIssued(db: Executor, id: string, issued: { holder_did: string; credential_ids: string[]; notification_id: string }): Promise<void> {
  return db
    .updateTable('oid4vci_grants')
    .set({ holder_did: issued.holder_did, credential_ids: JSON.stringify(issued.credential_ids), notification_id: issued.notification_id })
    .where('id', '=', id)
    .execute()
    .then(() => undefined)
}

export function recordDeferred(db: Executor, id: string, deferred: { holder_did: string; transaction_id: string; request_id: string; holder_keys: Array<{ did: string; jwk: Record<string, unknown> }> }): Promise<void> {
  return db
    .updateTable('oid4vci_grants')
    .set({ holder_did: deferred.holder_did, transaction_id: deferred.transaction_id, request_id: deferred.request_id, holder_keys: JSON.stringify(deferred.holder_keys) })
    .where('id', '=', id)
    .execute()
    .then(() => undefined)
}

export function findGrantByTransaction(db: Executor, issuerDid: string, transactionId: string): Promise<GrantRow | undefined> {
  return db.selectFrom('oid4vci_grants').selectAll().where('issuer_did', '=', issuerDid).where('transaction_id', '=', transactionId).executeTakeFirst()
}

export function findGrantByNotification(db: Executor, issuerDid: string, notificationId: string): Promise<GrantRow | undefined> {
  return db.selectFrom('oid4vci_grants').selectAll().where('issuer_did', '=', issuerDid).where('notification_id', '=', notificationId).executeTakeFirst()
}

export function findGrant(db: Executor, id: string): Promise<GrantRow | undefined> {
  return db.selectFrom('oid4vci_grants').selectAll().where('id', '=', id).executeTakeFirst()
}

export function insertNonce(db: Executor, row: { nonce_digest: string; issuer_did: string; expires_at: Date }): Promise<void> {
  return db.insertInto('oid4vci_nonces').values(row).execute().then(() => undefined)
}

/** Spends a c_nonce of the issuer, atomically: false when unknown, spent or expired. */
export async function spendNonce(db: Executor, issuerDid: string, digest: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('oid4vci_nonces')
    .set({ used_at: now })
    .where('nonce_digest', '=', digest)
    .where('issuer_did', '=', issuerDid)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('nonce_digest')
    .executeTakeFirst()
  return row !== undefined
}

export function deleteExpiredNonces(db: Executor, before: Date): Promise<void> {
  return db.deleteFrom('oid4vci_nonces').where('expires_at', '<', before).execute().then(() => undefined)
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

export function findOfferByIssuerState(db: Executor, issuerDid: string, digest: string): Promise<Oid4vciOfferRow | undefined> {
  return db.selectFrom('oid4vci_offers').selectAll().where('issuer_state_digest', '=', digest).where('issuer_did', '=', issuerDid).executeTakeFirst()
}

export async function insertAuthorizationCode(db: Executor, row: Insertable<Oid4vciAuthorizationCodesTable>, now: Date): Promise<void> {
  await db.deleteFrom('oid4vci_authorization_codes').where('expires_at', '<', now).execute()
  await db.insertInto('oid4vci_authorization_codes').values(row).execute()
}

export function findAuthorizationCode(db: Executor, issuerDid: string, digest: string, now: Date): Promise<AuthorizationCodeRow | undefined> {
  return db.selectFrom('oid4vci_authorization_codes').selectAll().where('code_digest', '=', digest).where('issuer_did', '=', issuerDid).where('used_at', 'is', null).where('expires_at', '>', now).executeTakeFirst()
}

/** Spends an authorization code, atomically: false when spent meanwhile. */
export async function spendAuthorizationCode(db: Executor, digest: string, now: Date): Promise<boolean> {
  const row = await db.updateTable('oid4vci_authorization_codes').set({ used_at: now }).where('code_digest', '=', digest).where('used_at', 'is', null).returning('code_digest').executeTakeFirst()
  return row !== undefined
}

export function recordDelivered(db: Executor, id: string, credentialIds: string[]): Promise<void> {
  return db.updateTable('oid4vci_grants').set({ credential_ids: JSON.stringify(credentialIds) }).where('id', '=', id).execute().then(() => undefined)
}
