import { sql, type Selectable } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { DomainChallengesTable, DomainProofMethod, DomainVerificationsTable } from './domain.table.js'

export type DomainChallengeRow = Selectable<DomainChallengesTable>
export type DomainVerificationRow = Selectable<DomainVerificationsTable>

/** The new challenge replaces every earlier one of this DID for this domain (open or spent). */
export async function replaceChallenge(db: Executor, row: DomainChallengeRow): Promise<DomainChallengeRow> {
  await db.deleteFrom('domain_challenges').where('did', '=', row.did).where('domain', '=', row.domain).execute()
  return db.insertInto('domain_challenges').values(row).returningAll().executeTakeFirstOrThrow()
}

export function findChallenge(db: Executor, id: string): Promise<DomainChallengeRow | undefined> {
  return db.selectFrom('domain_challenges').selectAll().where('id', '=', id).executeTakeFirst()
}

export function latestChallenge(db: Executor, did: string, domain: string): Promise<DomainChallengeRow | undefined> {
  return db
    .selectFrom('domain_challenges')
    .selectAll()
    .where('did', '=', did)
    .where('domain', '=', domain)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst()
}

export function challengesOf(db: Executor, did: string): Promise<DomainChallengeRow[]> {
  return db.selectFrom('domain_challenges').selectAll().where('did', '=', did).execute()
}

/** Spends the challenge if it is still open at `now`; undefined when used or expired meanwhile. */
export function consumeChallenge(db: Executor, id: string, now: Date): Promise<{ id: string } | undefined> {
  return db
    .updateTable('domain_challenges')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('id')
    .executeTakeFirst()
}

export async function countVerifications(db: Executor, did: string): Promise<number> {
  const row = await db
    .selectFrom('domain_verifications')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('did', '=', did)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export function findVerification(
  db: Executor,
  did: string,
  domain: string,
): Promise<DomainVerificationRow | undefined> {
  return db
    .selectFrom('domain_verifications')
    .selectAll()
    .where('did', '=', did)
    .where('domain', '=', domain)
    .executeTakeFirst()
}

export function listVerifications(db: Executor, did: string, domain?: string): Promise<DomainVerificationRow[]> {
  let query = db.selectFrom('domain_verifications').selectAll().where('did', '=', did)
  if (domain !== undefined) query = query.where('domain', '=', domain)
  return query.orderBy('domain').execute()
}

/** A record in `pending` for a DID starting on a domain; an existing record is left as it is. */
export async function ensurePending(db: Executor, did: string, domain: string, now: Date): Promise<void> {
  await db
    .insertInto('domain_verifications')
    .values({ did, domain, status: 'pending', created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['did', 'domain']).doNothing())
    .execute()
}

export function recordVerified(
  db: Executor,
  input: { did: string; domain: string; method: DomainProofMethod; now: Date; validUntil: Date | null },
): Promise<DomainVerificationRow> {
  const { did, domain, method, now, validUntil } = input
  const values = {
    status: 'verified' as const,
    method,
    verified_at: now,
    valid_until: validUntil,
    last_checked_at: now,
    last_error: null,
    updated_at: now,
  }
  return db
    .insertInto('domain_verifications')
    .values({ did, domain, ...values, created_at: now })
    .onConflict((oc) => oc.columns(['did', 'domain']).doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow()
}

/**
 * A failed check on an existing record: a verification still standing (not past valid_until)
 * stays verified, anything else becomes failed. No record is created for a failure.
 */
export async function recordFailure(
  db: Executor,
  input: { did: string; domain: string; now: Date; error: string },
): Promise<void> {
  const { did, domain, now, error } = input
  await db
    .updateTable('domain_verifications')
    .set({
      status: sql<
        'verified' | 'failed'
      >`case when status = 'verified' and (valid_until is null or valid_until > ${now}) then 'verified' else 'failed' end`,
      last_checked_at: now,
      last_error: error.slice(0, 500),
      updated_at: now,
    })
    .where('did', '=', did)
    .where('domain', '=', domain)
    .execute()
}
