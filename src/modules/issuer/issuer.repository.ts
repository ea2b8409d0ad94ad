import type { Selectable } from 'kysely'
import { compiledOnce } from '../../db/compiled-once.js'
import type { Executor, SigningMethod } from '../../db/database.js'
import type { IssuersTable } from './issuer.table.js'
import './step-ups.table.js'

export type IssuerRow = Selectable<IssuersTable>
/** What a step-up check reads: whether the issuer requires one, and until when this session has one. */
export type IssuerForSession = IssuerRow & { step_up_until: Date | null }

// Every issuer act reads the profile first (step-up, name): compiled once.
const issuerByDid = compiledOnce((db, p: { did: string }) =>
  db.selectFrom('issuers').selectAll().where('did', '=', p.did),
)

export async function findIssuer(db: Executor, did: string): Promise<IssuerRow | undefined> {
  return (await issuerByDid(db, { did }))[0]
}

const issuerWithStepUp = compiledOnce((db, p: { did: string; sessionId: string | null }) =>
  db
    .selectFrom('issuers as i')
    .leftJoin('issuer_step_ups as s', (join) =>
      join.onRef('s.issuer_did', '=', 'i.did').on('s.session_id', '=', p.sessionId),
    )
    .selectAll('i')
    .select('s.expires_at as step_up_until')
    .where('i.did', '=', p.did),
)

/** The profile with the step-up of one session (null without one); undefined without a profile. */
export async function findIssuerForSession(
  db: Executor,
  did: string,
  sessionId: string | null,
): Promise<IssuerForSession | undefined> {
  const row = (await issuerWithStepUp(db, { did, sessionId }))[0]
  return row && { ...row, step_up_until: row.step_up_until && new Date(row.step_up_until) }
}

/** Undefined when the DID already has an issuer profile. */
export function insertIssuer(
  db: Executor,
  row: Omit<IssuerRow, 'created_at' | 'updated_at' | 'require_step_up'>,
): Promise<IssuerRow | undefined> {
  return db
    .insertInto('issuers')
    .values(row)
    .onConflict((oc) => oc.column('did').doNothing())
    .returningAll()
    .executeTakeFirst()
}

export function updateIssuer(
  db: Executor,
  did: string,
  patch: Partial<Pick<IssuersTable, 'name' | 'description' | 'website' | 'logo_url' | 'email' | 'country'>> & {
    require_step_up?: boolean
  },
  now: Date,
): Promise<IssuerRow | undefined> {
  return db
    .updateTable('issuers')
    .set({ ...patch, updated_at: now })
    .where('did', '=', did)
    .returningAll()
    .executeTakeFirst()
}

/**
 * Records a session's step-up (a repeat extends it) and drops the issuer's expired ones in the
 * same statement, so the table holds no more rows than the issuer has live stepped-up sessions.
 * The session's own row is left to the upsert: one statement must not change a row twice.
 */
export async function recordStepUp(
  db: Executor,
  step: { issuerDid: string; sessionId: string; at: Date; expiresAt: Date },
): Promise<void> {
  await db
    .with('expired', (qb) =>
      qb
        .deleteFrom('issuer_step_ups')
        .where('issuer_did', '=', step.issuerDid)
        .where('session_id', '<>', step.sessionId)
        .where('expires_at', '<=', step.at),
    )
    .insertInto('issuer_step_ups')
    .values({
      issuer_did: step.issuerDid,
      session_id: step.sessionId,
      stepped_up_at: step.at,
      expires_at: step.expiresAt,
    })
    .onConflict((oc) =>
      oc.columns(['issuer_did', 'session_id']).doUpdateSet({ stepped_up_at: step.at, expires_at: step.expiresAt }),
    )
    .execute()
}

/** The issuer's new signing method (DESIGN.md "Issuer identity"); later signers follow it. */
export async function setSigningMethod(
  db: Executor,
  issuerDid: string,
  method: SigningMethod,
  now: Date,
): Promise<void> {
  await db
    .updateTable('issuers')
    .set({ signing_method: method, updated_at: now })
    .where('did', '=', issuerDid)
    .execute()
}
