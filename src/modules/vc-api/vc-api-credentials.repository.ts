import { sql, type Insertable } from 'kysely'
import type { Executor } from '../../db/database.js'
import { isUniqueViolation } from '../../db/pg-errors.js'
import { SET_STATUS_BIT_OF_REVOKED } from '../status-list/status-list.statements.js'
import type { VcApiCredentialsTable } from './vc-api.table.js'

/** A row as issuance writes it: never revoked yet. */
export type NewVcApiCredential = Omit<Insertable<VcApiCredentialsTable>, 'revoked_at'>

/** Inserts it; false when this issuer already has a credential with its id (the unique index decides, race-free). */
export async function insertCredential(db: Executor, row: NewVcApiCredential): Promise<boolean> {
  try {
    await db
      .insertInto('vc_api_credentials')
      .values({ ...row, revoked_at: null })
      .execute()
    return true
  } catch (error) {
    if (isUniqueViolation(error)) return false
    throw error
  }
}

/** A credential this issuer issued through the VC API, by its row id: the stored form and its format. */
export function findById(db: Executor, issuerDid: string, id: string) {
  return db
    .selectFrom('vc_api_credentials')
    .select(['format', 'credential'])
    .where('issuer_did', '=', issuerDid)
    .where('id', '=', id)
    .executeTakeFirst()
}

export function findByCredentialId(db: Executor, issuerDid: string, credentialId: string) {
  return db
    .selectFrom('vc_api_credentials')
    .select(['id', 'status_list_id', 'status_list_index', 'revoked_at'])
    .where('issuer_did', '=', issuerDid)
    .where('credential_id', '=', credentialId)
    .executeTakeFirst()
}

/**
 * Revokes one credential and sets its status bit in the same statement (status-list.statements.ts),
 * so the record and the published list never disagree; false when it was already revoked.
 */
export async function revoke(db: Executor, id: string, at: Date): Promise<boolean> {
  const result = await sql<{ id: string }>`
    with revoked as (
      update vc_api_credentials set revoked_at = ${at}
      where id = ${id} and revoked_at is null and status_list_id is not null
      returning id, status_list_id, status_list_index, revoked_at
    ), bit as (${SET_STATUS_BIT_OF_REVOKED})
    select id from revoked`.execute(db)
  return result.rows.length > 0
}
