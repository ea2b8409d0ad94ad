import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type Json<T> = ColumnType<T, string, string>

export interface HolderInboxTable {
  request_id: string
  holder_did: string
  /** pending | approved | rejected */
  status: string
  reason: string | null
  presentation_id: string | null
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface PresentationsTable {
  id: string
  request_id: string | null
  prover_did: string
  verifier_did: string
  presentation_type: string
  credential_ids: Json<string[]>
  presentation_jwt: string
  /** submitted | verified | failed */
  status: string
  is_verified: Generated<boolean>
  provided_attributes: Json<string[]>
  revoked_attributes: Json<string[]>
  verification_result: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
  consent_id: string | null
  verified_at: Date | null
  created_at: Generated<Date>
  updated_at: Timestamp
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    holder_inbox: HolderInboxTable
    presentations: PresentationsTable
  }
}
