import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type Json<T> = ColumnType<T, string, string>

export interface ConsentsTable {
  id: string
  holder_did: string
  verifier_did: string
  purpose: string
  data_categories: Json<string[]>
  access_level: string
  expiration_policy: string
  expires_at: Date | null
  revoked: Generated<boolean>
  revoked_at: Date | null
  used_at: Date | null
  used_by: string | null
  on_chain: Generated<boolean>
  blockchain_tx: Generated<string>
  created_at: Generated<Date>
  updated_at: Timestamp
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    consents: ConsentsTable
  }
}
