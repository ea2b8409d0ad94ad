import { sql, type Selectable } from 'kysely'
import type { Database, Executor } from '../../db/database.js'
import type { VerifierCertificatesTable, VerifierCertificateUse } from './verifier-certificates.table.js'

export type VerifierCertificateRow = Selectable<VerifierCertificatesTable>
export type NewVerifierCertificate = Omit<VerifierCertificateRow, 'created_at' | 'status'>

/** The verifier profile's name; undefined for a DID without a profile. */
export async function verifierProfile(db: Executor, did: string): Promise<{ name: string } | undefined> {
  return db.selectFrom('verifiers').select('name').where('did', '=', did).executeTakeFirst()
}

export function listByVerifier(db: Executor, verifierDid: string): Promise<VerifierCertificateRow[]> {
  return db
    .selectFrom('verifier_certificates')
    .selectAll()
    .where('verifier_did', '=', verifierDid)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

export function findActive(
  db: Executor,
  verifierDid: string,
  use: VerifierCertificateUse,
): Promise<VerifierCertificateRow | undefined> {
  return db
    .selectFrom('verifier_certificates')
    .selectAll()
    .where('verifier_did', '=', verifierDid)
    .where('use', '=', use)
    .where('status', '=', 'active')
    .executeTakeFirst()
}

/** Whether a key store key already carries a certificate (a CSR key stops being pending then). */
export async function keyIsCertified(db: Executor, keyId: string): Promise<boolean> {
  return !!(await db.selectFrom('verifier_certificates').select('id').where('key_id', '=', keyId).executeTakeFirst())
}

/** Certificates retired and made active together, or not at all. */
export interface VerifierChainChange {
  retire: string[]
  insert: NewVerifierCertificate[]
}

const LOST = Symbol('lost')

/** Applies a change in one transaction; false when a concurrent change got there first. */
export async function applyChange(db: Database, change: VerifierChainChange): Promise<boolean> {
  try {
    await db.transaction().execute(async (trx) => {
      for (const id of change.retire) {
        const result = await trx
          .updateTable('verifier_certificates')
          .set({ status: 'retired' })
          .where('id', '=', id)
          .where('status', '=', 'active')
          .executeTakeFirst()
        if (Number(result.numUpdatedRows) === 0) throw LOST
      }
      for (const row of change.insert) {
        const result = await trx
          .insertInto('verifier_certificates')
          .values({ ...row, chain: JSON.stringify(row.chain), status: 'active' })
          // A literal predicate, so PostgreSQL matches the partial unique index.
          .onConflict((oc) => oc.columns(['verifier_did', 'use']).where('status', '=', sql.lit('active')).doNothing())
          .executeTakeFirst()
        if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) throw LOST
      }
    })
    return true
  } catch (error) {
    if (error === LOST) return false
    throw error
  }
}
