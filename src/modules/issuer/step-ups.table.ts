import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** A step-up of one session (token jti) of an issuer, usable until `expires_at` (docs/decisions.md "Step-up"). */
export interface IssuerStepUpsTable {
  issuer_did: string
  session_id: string
  stepped_up_at: Timestamp
  expires_at: Timestamp
}

// Joins the one DB interface (declaration merging) so Kysely types the table.
declare module '../../db/database.js' {
  interface DB {
    issuer_step_ups: IssuerStepUpsTable
  }
}
