import type { Generated } from 'kysely'

export interface ServiceKeysTable {
  kid: string
  owner: string
  purpose: string
  algorithm: string
  public_key: Uint8Array
  private_key_enc: Uint8Array
  status: string
  created_at: Generated<Date>
  retired_at: Date | null
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    service_keys: ServiceKeysTable
  }
}
