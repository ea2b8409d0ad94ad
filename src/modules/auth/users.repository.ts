import { sql } from 'kysely'
import type { Executor, UsersTable } from '../../db/database.js'

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

/**
 * Spends a login challenge and records the login in one statement: the user row is created on
 * first login (did:key, did:web) or touched, but only if the challenge nonce was not spent
 * before. Returns undefined when it was (a replay, or the loser of a concurrent double use).
 */
export async function spendChallengeAndTouchUser(
  db: Executor,
  challenge: { nonce: string; expiresAt: Date },
  user: NewUser,
  now: Date,
): Promise<UserRow | undefined> {
  const result = await sql<UserRow>`
    with spent as (
      insert into auth_used_challenges (id, expires_at) values (${challenge.nonce}, ${challenge.expiresAt})
      on conflict (id) do nothing
      returning id
    )
    insert into users (did, public_key, key_type, origin, name, email, last_login_at)
    select ${user.did}, ${user.public_key}, ${user.key_type}, ${user.origin}, ${user.name ?? ''}, ${user.email ?? ''}, ${now}
    where exists (select 1 from spent)
    on conflict (did) do update set last_login_at = excluded.last_login_at
    returning *`.execute(db)
  return result.rows[0]
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
  return db.updateTable('users').set({ ...patch, updated_at: now }).where('did', '=', did).returningAll().executeTakeFirst()
}
