import type { ColumnType, Selectable } from 'kysely'
import type { Executor } from '../../../db/database.js'

/** One hosted-wallet exchange between its prepare and complete calls (migration 20261126T1420). */
export interface WalletProtocolSessionsTable {
  id: string
  holder_did: string
  kind: 'oid4vci' | 'oid4vp'
  /** prepared: waiting for the holder's signature; sent: completed once; pending: deferred by the issuer; declined: refused by the holder (OpenID4VP). */
  status: 'prepared' | 'sent' | 'pending' | 'declined'
  /** The exchange's public state (JSON text). */
  state: string
  /** Its secrets, sealed (SecretBox, bound to the row id). */
  sealed: Uint8Array | null
  expires_at: ColumnType<Date, Date | string, Date | string>
  created_at: ColumnType<Date, Date | string | undefined, never>
}

declare module '../../../db/database.js' {
  interface DB {
    wallet_protocol_sessions: WalletProtocolSessionsTable
  }
}

export type ProtocolSessionRow = Selectable<WalletProtocolSessionsTable>

export async function insertSession(db: Executor, row: Omit<ProtocolSessionRow, 'created_at'>): Promise<void> {
  await db.insertInto('wallet_protocol_sessions').values(row).execute()
}

/**
 * Takes the session for one completion: only the holder's own, unexpired, in `from` state; the
 * update makes a second completion of the same prepared exchange find nothing (single use).
 */
export function takeSession(
  db: Executor,
  holderDid: string,
  id: string,
  kind: ProtocolSessionRow['kind'],
  from: ProtocolSessionRow['status'],
  to: ProtocolSessionRow['status'],
  now: Date,
): Promise<ProtocolSessionRow | undefined> {
  return db
    .updateTable('wallet_protocol_sessions')
    .set({ status: to })
    .where('id', '=', id)
    .where('holder_did', '=', holderDid)
    .where('kind', '=', kind)
    .where('status', '=', from)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst()
}

export function findSession(db: Executor, holderDid: string, id: string): Promise<ProtocolSessionRow | undefined> {
  return db
    .selectFrom('wallet_protocol_sessions')
    .selectAll()
    .where('id', '=', id)
    .where('holder_did', '=', holderDid)
    .executeTakeFirst()
}

export async function updateSessionState(
  db: Executor,
  id: string,
  patch: { state?: string; status?: ProtocolSessionRow['status']; expires_at?: Date },
): Promise<void> {
  await db.updateTable('wallet_protocol_sessions').set(patch).where('id', '=', id).execute()
}

export async function deleteExpiredSessions(db: Executor, before: Date, limit: number): Promise<void> {
  await db
    .deleteFrom('wallet_protocol_sessions')
    .where('id', 'in', (q) =>
      q.selectFrom('wallet_protocol_sessions').select('id').where('expires_at', '<', before).limit(limit),
    )
    .execute()
}
