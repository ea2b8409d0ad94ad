import type { Generated } from 'kysely'

export interface QrCodesTable {
  short_id: string
  kind: string
  target_id: string
  owner_did: string
  payload: string
  expires_at: Date | null
  created_at: Generated<Date>
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    qr_codes: QrCodesTable
  }
}
