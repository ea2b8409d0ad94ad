import type { Executor } from '../../db/database.js'
import './vc-api.table.js'

export interface ClientRow {
  client_id: string
  issuer_did: string
  name: string
  scope: string
  created_at: Date
  revoked_at: Date | null
}

const CLIENT_COLUMNS = ['client_id', 'issuer_did', 'name', 'scope', 'created_at', 'revoked_at'] as const

export async function insertClient(
  db: Executor,
  row: { client_id: string; issuer_did: string; name: string; scope: string; secret_digest: string; created_at: Date },
): Promise<ClientRow> {
  return db
    .insertInto('vc_api_clients')
    .values({ ...row, revoked_at: null })
    .returning(CLIENT_COLUMNS)
    .executeTakeFirstOrThrow()
}

export function clientsOf(db: Executor, issuerDid: string): Promise<ClientRow[]> {
  return db
    .selectFrom('vc_api_clients')
    .select(CLIENT_COLUMNS)
    .where('issuer_did', '=', issuerDid)
    .orderBy('created_at')
    .orderBy('client_id')
    .execute()
}

/** A client of this issuer, revoked or not. */
export function findClient(db: Executor, issuerDid: string, clientId: string): Promise<ClientRow | undefined> {
  return db
    .selectFrom('vc_api_clients')
    .select(CLIENT_COLUMNS)
    .where('client_id', '=', clientId)
    .where('issuer_did', '=', issuerDid)
    .executeTakeFirst()
}

type ActiveClient = { client_id: string; issuer_did: string; scope: string; secret_digest: string }

/** An active client with its secret's digest, for the token exchange. */
export function activeClient(db: Executor, clientId: string): Promise<ActiveClient | undefined> {
  return db
    .selectFrom('vc_api_clients')
    .select(['client_id', 'issuer_did', 'scope', 'secret_digest'])
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
}

/** Revokes a client of this issuer and drops its tokens; false when it has no such active client. */
export async function revokeClient(db: Executor, issuerDid: string, clientId: string, at: Date): Promise<boolean> {
  const revoked = await db
    .updateTable('vc_api_clients')
    .set({ revoked_at: at })
    .where('client_id', '=', clientId)
    .where('issuer_did', '=', issuerDid)
    .where('revoked_at', 'is', null)
    .returning('client_id')
    .executeTakeFirst()
  if (!revoked) return false
  await db.deleteFrom('vc_api_tokens').where('client_id', '=', clientId).execute()
  return true
}

export async function insertToken(
  db: Executor,
  row: { token_digest: string; client_id: string; scope: string; expires_at: Date },
) {
  await db.insertInto('vc_api_tokens').values(row).execute()
}

/** Tokens past their expiry, removed a bounded batch at a time as new ones are issued. */
export async function deleteExpiredTokens(db: Executor, now: Date, limit: number): Promise<void> {
  await db
    .deleteFrom('vc_api_tokens')
    .where('token_digest', 'in', (q) =>
      q.selectFrom('vc_api_tokens').select('token_digest').where('expires_at', '<', now).limit(limit),
    )
    .execute()
}

/** The issuer a live token acts for, and its scopes: its client active, the token unexpired. */
export function tokenHolder(
  db: Executor,
  tokenDigest: string,
  now: Date,
): Promise<{ client_id: string; issuer_did: string; scope: string; expires_at: Date } | undefined> {
  return db
    .selectFrom('vc_api_tokens as t')
    .innerJoin('vc_api_clients as c', 'c.client_id', 't.client_id')
    .select(['t.client_id', 'c.issuer_did', 't.scope', 't.expires_at'])
    .where('t.token_digest', '=', tokenDigest)
    .where('t.expires_at', '>', now)
    .where('c.revoked_at', 'is', null)
    .executeTakeFirst()
}
