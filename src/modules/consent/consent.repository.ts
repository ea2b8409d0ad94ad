import { sql, type ExpressionBuilder, type Insertable, type Selectable } from 'kysely'
import { compiledOnce } from '../../db/compiled-once.js'
import type { DB, Executor } from '../../db/database.js'
import type { ConsentsTable } from './consent.table.js'
import type { ConsentStatus } from './consent.schemas.js'

/** SQL of the consents table. Every "now" is a parameter from the injected clock, never SQL now(). */

export type ConsentRow = Selectable<ConsentsTable>
export type NewConsent = Omit<Insertable<ConsentsTable>, 'data_categories'> & { data_categories: string[] }

type Eb = ExpressionBuilder<DB, 'consents'>

/**
 * Usable at `at`: not revoked, not used, not past a fixed date. The same rule as consentState()
 * in consent.service.ts; one_time_use and indefinite rows have no expires_at (a check constraint).
 */
const usableAt = (at: Date) => (eb: Eb) =>
  eb.and([
    eb('revoked', '=', false),
    eb('used_by', 'is', null),
    eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', at)]),
  ])

const expiredAt = (at: Date) => (eb: Eb) =>
  eb.and([eb('revoked', '=', false), eb.or([eb('used_by', 'is not', null), eb('expires_at', '<=', at)])])

export function insertConsent(db: Executor, row: NewConsent): Promise<ConsentRow> {
  return db
    .insertInto('consents')
    .values({ ...row, data_categories: JSON.stringify(row.data_categories) })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** The holder's consent; another holder's is not found. */
export function findConsent(db: Executor, holderDid: string, id: string): Promise<ConsentRow | undefined> {
  return db
    .selectFrom('consents')
    .selectAll()
    .where('id', '=', id)
    .where('holder_did', '=', holderDid)
    .executeTakeFirst()
}

/** Keyset page over (holder_did, id): the consents_holder_idx index. */
export function listConsents(
  db: Executor,
  holderDid: string,
  filter: { verifierDid?: string; status?: ConsentStatus; at: Date },
  page: { limit: number; after?: string },
): Promise<ConsentRow[]> {
  let query = db.selectFrom('consents').selectAll().where('holder_did', '=', holderDid)
  if (filter.verifierDid !== undefined) query = query.where('verifier_did', '=', filter.verifierDid)
  if (filter.status === 'revoked') query = query.where('revoked', '=', true)
  else if (filter.status === 'active') query = query.where(usableAt(filter.at))
  else if (filter.status === 'expired') query = query.where(expiredAt(filter.at))
  if (page.after) query = query.where('id', '>', page.after)
  return query.orderBy('id').limit(page.limit).execute()
}

/** What a chain records per consent: one opaque key for (holder, verifier, purpose). */
export interface ConsentTriple {
  holder_did: string
  verifier_did: string
  purpose: string
}

/**
 * Serializes changes to one triple's consents until the transaction ends, so each change reads
 * the triple's live consents after the previous change committed (READ COMMITTED takes a new
 * snapshot per statement) and chain jobs are queued in the order the changes happened. A hash
 * collision between two triples only makes them wait for each other.
 */
export async function lockTriple(trx: Executor, triple: ConsentTriple): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${JSON.stringify([triple.holder_did, triple.verifier_did, triple.purpose])}, 0))`.execute(
    trx,
  )
}

/**
 * Whether any consent of the triple is usable at `at`, and until when: null when one of them has
 * no end date (indefinite, or a one-time consent not used yet), else the latest fixed date.
 */
export async function liveUntil(
  db: Executor,
  triple: ConsentTriple,
  at: Date,
): Promise<{ live: false } | { live: true; expiresAt: Date | null }> {
  const row = await db
    .selectFrom('consents')
    .select([
      sql<number>`count(*)`.as('n'),
      sql<boolean>`bool_or(expires_at is null)`.as('open'),
      sql<Date | null>`max(expires_at)`.as('until'),
    ])
    .where('holder_did', '=', triple.holder_did)
    .where('verifier_did', '=', triple.verifier_did)
    .where('purpose', '=', triple.purpose)
    .where(usableAt(at))
    .executeTakeFirstOrThrow()
  if (Number(row.n) === 0) return { live: false }
  return { live: true, expiresAt: row.open ? null : new Date(row.until!) }
}

/** Granted -> revoked; undefined when it is not the holder's or was already revoked. */
export function markRevoked(db: Executor, holderDid: string, id: string, at: Date): Promise<ConsentRow | undefined> {
  return db
    .updateTable('consents')
    .set({ revoked: true, revoked_at: at, updated_at: at })
    .where('id', '=', id)
    .where('holder_did', '=', holderDid)
    .where('revoked', '=', false)
    .returningAll()
    .executeTakeFirst()
}

/**
 * The consent that decides a verification for a holder, verifier and purpose, in one round trip.
 * The usable one (`usable` true) if any: a standing one (indefinite, fixed_date) before a one-time
 * one, so a one-time consent is not spent while a standing consent covers the presentation; then
 * the most recent (the partial index consents_usable_pair_idx, migration 20261123T0920: a pair
 * has few usable consents, so purpose is a filter on them). Else the most recently granted one of
 * the triple, whatever its state (`usable` false); that branch's NOT EXISTS is a one-time filter,
 * so it scans nothing when a usable consent exists. Purpose compares exactly, as the chain key does.
 */
const decidingForTriple = compiledOnce(
  (db, p: { holderDid: string; verifierDid: string; purpose: string; at: Date }) => {
    const triple = (eb: Eb) =>
      eb.and([
        eb('holder_did', '=', p.holderDid),
        eb('verifier_did', '=', p.verifierDid),
        eb('purpose', '=', p.purpose),
      ])
    const usable = db
      .selectFrom('consents')
      .selectAll()
      .select(sql<boolean>`true`.as('usable'))
      .where(triple)
      .where(usableAt(p.at))
      .orderBy((eb) => eb.case().when('expiration_policy', '=', 'one_time_use').then(1).else(0).end())
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
    const latest = db
      .selectFrom('consents')
      .selectAll()
      .select(sql<boolean>`false`.as('usable'))
      .where(triple)
      .where(({ not, exists }) =>
        not(exists(db.selectFrom('consents').select('id').where(triple).where(usableAt(p.at)))),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
    return db
      .selectFrom(usable.as('u'))
      .selectAll()
      .unionAll(db.selectFrom(latest.as('l')).selectAll())
  },
)

export async function findDecidingForTriple(
  db: Executor,
  triple: { holderDid: string; verifierDid: string; purpose: string },
  at: Date,
): Promise<(ConsentRow & { usable: boolean }) | undefined> {
  return (await decidingForTriple(db, { ...triple, at }))[0]
}

/**
 * Marks a one-time consent used by one presentation. One conditional UPDATE: under concurrent
 * calls PostgreSQL re-checks the WHERE clause on the row version the first writer committed
 * (READ COMMITTED, "EvalPlanQual"), so exactly one caller gets the row back.
 */
export function markUsed(
  db: Executor,
  id: string,
  presentationId: string,
  at: Date,
): Promise<ConsentTriple | undefined> {
  return db
    .updateTable('consents')
    .set({ used_by: presentationId, used_at: at, updated_at: at })
    .where('id', '=', id)
    .where('expiration_policy', '=', 'one_time_use')
    .where('used_by', 'is', null)
    .where('revoked', '=', false)
    .returning(['holder_did', 'verifier_did', 'purpose'])
    .executeTakeFirst()
}
