import type { Selectable } from 'kysely'
import { compiledOnce } from '../../db/compiled-once.js'
import type { Executor, IssuersTable } from '../../db/database.js'

export type IssuerRow = Selectable<IssuersTable>

// Every issuer act reads the profile first (step-up, name): compiled once.
const issuerByDid = compiledOnce((db, p: { did: string }) => db.selectFrom('issuers').selectAll().where('did', '=', p.did))

export async function findIssuer(db: Executor, did: string): Promise<IssuerRow | undefined> {
  return (await issuerByDid(db, { did }))[0]
}

/** Undefined when the DID already has an issuer profile. */
export function insertIssuer(db: Executor, row: Omit<IssuerRow, 'created_at' | 'updated_at' | 'require_step_up' | 'step_up_at'>): Promise<IssuerRow | undefined> {
  return db.insertInto('issuers').values(row).onConflict((oc) => oc.column('did').doNothing()).returningAll().executeTakeFirst()
}

export function updateIssuer(
  db: Executor,
  did: string,
  patch: Partial<Pick<IssuersTable, 'name' | 'description' | 'website' | 'logo_url' | 'email'>> & { require_step_up?: boolean; step_up_at?: Date },
  now: Date,
): Promise<IssuerRow | undefined> {
  return db.updateTable('issuers').set({ ...patch, updated_at: now }).where('did', '=', did).returningAll().executeTakeFirst()
}
