import { sql } from 'kysely'
import type { Executor } from '../../db/database.js'
import { ValidationError } from '../../errors.js'

/**
 * The wallet's append-only activity log (docs/wallet.md "Activities"). Every module that changes
 * something in a holder's wallet calls `recordActivity` with its own transaction, so the entry
 * exists exactly when the event does.
 */
export const ACTIVITY_TYPES = [
  'credential_received',
  'credential_imported',
  'credential_deleted',
  'credential_withdrawn',
  // Its issuer revoked it: at revocation for one issued here, when the status list is read again for an import.
  'credential_revoked',
  'credential_shared',
  'share_accessed',
  'share_revoked',
  'evidence_uploaded',
  'credential_request_created',
  // An OpenID4VCI wallet's notification (OID4VCI 1.0 §11): it stored, or failed to store, what it received.
  'credential_accepted',
  'credential_failure',
  // The holder's own decision on an OpenID4VCI offer (docs/wallet.md "Consent records").
  'credential_offer_accepted',
  'credential_offer_declined',
  // Written by the presentation and consent modules.
  'presentation_submitted',
  'presentation_rejected',
  // The holder's decision on an OpenID4VP request of the hosted wallet: what was shared with whom, or the refusal.
  'presentation_shared',
  'presentation_declined',
  'consent_granted',
  'consent_revoked',
] as const
export type ActivityType = (typeof ACTIVITY_TYPES)[number]

export interface ActivityInput {
  holder_did: string
  type: ActivityType
  credential_id?: string | null
  /** Client-safe facts (ids, types, labels); no attribute values or other personal data. */
  details?: Record<string, unknown>
  /** The service clock's time of the event; default the database's now(). */
  at?: Date
}

export interface ActivityRow {
  id: string
  holder_did: string
  type: string
  credential_id: string | null
  details: Record<string, unknown>
  created_at: Date
}

/** Appends one entry; pass the transaction that makes the event itself. */
export function recordActivity(trx: Executor, entry: ActivityInput): Promise<void> {
  return recordActivities(trx, [entry])
}

/** Appends several entries in one statement (a batch of issuances). */
export async function recordActivities(trx: Executor, entries: ActivityInput[]): Promise<void> {
  if (entries.length === 0) return
  await trx
    .insertInto('wallet_activities')
    .values(
      entries.map((e) => ({
        holder_did: e.holder_did,
        type: e.type,
        credential_id: e.credential_id ?? null,
        details: JSON.stringify(e.details ?? {}),
        ...(e.at ? { created_at: e.at } : {}),
      })),
    )
    .execute()
}

export interface ActivityFilter {
  type?: string
  credential_id?: string
  order: 'asc' | 'desc'
}

/** One page of the holder's log in sequence order; the cursor is the last entry's id. */
export function listActivities(
  db: Executor,
  holderDid: string,
  filter: ActivityFilter,
  page: { limit: number; after?: string },
): Promise<ActivityRow[]> {
  let query = db
    .selectFrom('wallet_activities')
    .select([sql<string>`id::text`.as('id'), 'holder_did', 'type', 'credential_id', 'details', 'created_at'])
    .where('holder_did', '=', holderDid)
  if (filter.type) query = query.where('type', '=', filter.type)
  if (filter.credential_id) query = query.where('credential_id', '=', filter.credential_id)
  if (page.after !== undefined) {
    if (!/^\d{1,18}$/.test(page.after))
      throw new ValidationError('cursor must be the next_cursor of the previous page', { details: { field: 'cursor' } })
    query = query.where('wallet_activities.id', filter.order === 'asc' ? '>' : '<', sql<string>`${page.after}::bigint`)
  }
  // By the bigint column, not the text alias `id` (ORDER BY prefers output names: "10" < "9").
  return query.orderBy('wallet_activities.id', filter.order).limit(page.limit).execute()
}
