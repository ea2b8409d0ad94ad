import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

export interface HolderKemKeysTable {
  did: string
  public_key: Uint8Array
  custody: 'service' | 'holder'
  kid: string | null
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface WalletRemovalsTable {
  holder_did: string
  credential_id: string
  removed_at: Generated<Date>
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    holder_kem_keys: HolderKemKeysTable
    wallet_removals: WalletRemovalsTable
  }
}
