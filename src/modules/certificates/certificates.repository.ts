import { sql, type Selectable } from 'kysely'
import type { Database, Executor } from '../../db/database.js'
import type { IssuerSubject } from './certificate-profiles.js'
import type { CertificateUse, IssuerCertificatesTable } from './certificates.table.js'

export type CertificateRow = Selectable<IssuerCertificatesTable>
export type NewCertificate = Omit<CertificateRow, 'created_at' | 'status'>

/** What the issuer profile says its certificates' subjects name; undefined for a DID without one. */
export function issuerSubject(db: Executor, did: string): Promise<IssuerSubject | undefined> {
  return db.selectFrom('issuers').select(['name', 'country']).where('did', '=', did).executeTakeFirst()
}

export function listByIssuer(db: Executor, issuerDid: string): Promise<CertificateRow[]> {
  return db
    .selectFrom('issuer_certificates')
    .selectAll()
    .where('issuer_did', '=', issuerDid)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

export function findActive(db: Executor, issuerDid: string, use: CertificateUse): Promise<CertificateRow | undefined> {
  return db
    .selectFrom('issuer_certificates')
    .selectAll()
    .where('issuer_did', '=', issuerDid)
    .where('use', '=', use)
    .where('status', '=', 'active')
    .executeTakeFirst()
}

/** Whether a key store key already carries a certificate (a CSR key stops being pending then). */
export async function keyIsCertified(db: Executor, keyId: string): Promise<boolean> {
  return !!(await db.selectFrom('issuer_certificates').select('id').where('key_id', '=', keyId).executeTakeFirst())
}

/** The issuer a certificate (in its stored PEM) belongs to, whatever its use and status. */
export async function issuerOfPem(db: Executor, pem: string): Promise<string | undefined> {
  return (await db.selectFrom('issuer_certificates').select('issuer_did').where('pem', '=', pem).executeTakeFirst())
    ?.issuer_did
}

export function iacaRoots(db: Executor): Promise<Pick<CertificateRow, 'pem' | 'not_after'>[]> {
  return db
    .selectFrom('issuer_certificates')
    .select(['pem', 'not_after'])
    .where('use', '=', 'iaca')
    .orderBy('created_at')
    .execute()
}

/** Inserts as the active certificate of its (issuer, use); false when another is active already. */
export async function insertActive(db: Executor, row: NewCertificate): Promise<boolean> {
  const result = await db
    .insertInto('issuer_certificates')
    .values({ ...row, status: 'active' })
    // A literal predicate, so PostgreSQL matches the partial unique index (as keys.repository.ts).
    .onConflict((oc) => oc.columns(['issuer_did', 'use']).where('status', '=', sql.lit('active')).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

/** Retires an active certificate; false when it was no longer active (a concurrent change won). */
export async function retire(db: Executor, id: string): Promise<boolean> {
  const result = await db
    .updateTable('issuer_certificates')
    .set({ status: 'retired' })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Certificates retired and made active together, or not at all. */
export interface ChainChange {
  retire: string[]
  insert: NewCertificate[]
}

const LOST = Symbol('lost')

/**
 * Applies a change in one transaction; false when a concurrent change got there first (a row to
 * retire is no longer active, or another certificate became active): the caller reads the winner's.
 */
export async function applyChange(db: Database, change: ChainChange): Promise<boolean> {
  try {
    await db.transaction().execute(async (trx) => {
      for (const id of change.retire) if (!(await retire(trx, id))) throw LOST
      for (const row of change.insert) if (!(await insertActive(trx, row))) throw LOST
    })
    return true
  } catch (error) {
    if (error === LOST) return false
    throw error
  }
}
