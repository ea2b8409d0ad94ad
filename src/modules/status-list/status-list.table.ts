import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

export interface StatusListsTable {
  id: string
  issuer_did: string
  purpose: string
  size: number
  multiplier: number
  offset: number
  next_counter: Generated<number>
  bits: Uint8Array
  version: Generated<number>
  created_at: Generated<Date>
  updated_at: Timestamp
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    status_lists: StatusListsTable
  }
}
