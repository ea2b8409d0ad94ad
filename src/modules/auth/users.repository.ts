import { sql } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { UsersTable } from './auth.table.js'

export interface UserRow {
  did: string
  public_key: string
  key_type: string
  name: string
  email: string
  avatar_cid: string | null
  avatar_content_type: string | null
  bio: string | null
  origin: string
  created_at: Date
  updated_at: Date
  last_login_at: Date | null
}

/** What a session needs of a user: the spec's User fields. */
export interface UserSummary {
  did: string
  public_key: string
  name: string
  email: string
}

export interface NewUser {
  did: string
  public_key: string
  key_type: string
  origin: string
  name?: string
  email?: string
}

export function findUser(db: Executor, did: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('did', '=', did).executeTakeFirst()
}

export interface LoginWrite {
  nonce: string
  expiresAt: Date
  user: NewUser
}

/**
 * Spends login challenges and records the logins, many at once, in one statement: each user
 * row is created on first login (did:key, did:web) or touched, but only for challenges whose
 * nonce was not spent before. Returns, per input, the user or undefined when the challenge was
 * already spent (a replay, or the loser of a concurrent double use). Callers pass distinct
 * nonces (the login batcher does).
 */
export async function spendChallengesAndTouchUsers(
  db: Executor,
  logins: readonly LoginWrite[],
  now: Date,
): Promise<Array<UserSummary | undefined>> {
  if (logins.length === 0) return []
  const values = sql.join(
    logins.map(
      (l) =>
        sql`(${l.nonce}::text, ${l.expiresAt}::timestamptz, ${l.user.did}::text, ${l.user.public_key}::text, ${l.user.key_type}::text, ${l.user.origin}::text)`,
    ),
  )
  const result = await sql<UserSummary & { nonce: string }>`
    with input (nonce, expires_at, did, public_key, key_type, origin) as (values ${values}),
    spent as (
      insert into auth_used_challenges (id, expires_at) select nonce, expires_at from input
      on conflict (id) do nothing
      returning id
    ),
    upserted as (
      insert into users (did, public_key, key_type, origin, last_login_at)
      select distinct on (i.did) i.did, i.public_key, i.key_type, i.origin, ${now}::timestamptz
      from input i join spent s on s.id = i.nonce
      on conflict (did) do update set last_login_at = excluded.last_login_at
      returning did, public_key, name, email
    )
    select i.nonce, u.did, u.public_key, u.name, u.email
    from spent s join input i on i.nonce = s.id join upserted u on u.did = i.did`.execute(db)
  const byNonce = new Map(
    result.rows.map((r) => [r.nonce, { did: r.did, public_key: r.public_key, name: r.name, email: r.email }]),
  )
  return logins.map((l) => byNonce.get(l.nonce))
}

/** Spends a challenge without logging in (step-up proofs). False when already spent. */
export async function spendChallenge(db: Executor, challenge: { nonce: string; expiresAt: Date }): Promise<boolean> {
  const result = await db
    .insertInto('auth_used_challenges')
    .values({ id: challenge.nonce, expires_at: challenge.expiresAt })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

export async function deleteSpentChallengesBefore(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('auth_used_challenges').where('expires_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Inserts a user; returns undefined when the DID is already taken. */
export async function insertUser(db: Executor, user: NewUser): Promise<UserRow | undefined> {
  return db
    .insertInto('users')
    .values({ ...user, name: user.name ?? '', email: user.email ?? '' })
    .onConflict((oc) => oc.column('did').doNothing())
    .returningAll()
    .executeTakeFirst()
}

export async function updateUser(
  db: Executor,
  did: string,
  patch: Partial<Pick<UsersTable, 'name' | 'email' | 'bio' | 'avatar_cid' | 'avatar_content_type'>>,
  now: Date,
): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({ ...patch, updated_at: now })
    .where('did', '=', did)
    .returningAll()
    .executeTakeFirst()
}
