import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

export interface UsersTable {
  did: string
  /** Multibase (z-base58btc) multicodec-prefixed public key. */
  public_key: string
  key_type: string
  name: string
  email: string
  avatar_cid: string | null
  avatar_content_type: string | null
  bio: string | null
  /** 'did-key' (derived, created on first login) or 'registered'. */
  origin: string
  created_at: Generated<Date>
  updated_at: Generated<Date>
  last_login_at: Date | null
}

export interface AuthUsedChallengesTable {
  id: string
  expires_at: Date
}

export interface WalletsTable {
  id: string
  did: string
  wallet_name: string
  wallet_type: string
  metadata: ColumnType<Record<string, unknown>, string, string>
  created_at: Generated<Date>
  last_login_at: Date | null
}

export interface WalletSeedsTable {
  did: string
  encrypted_seed: string
  encryption: ColumnType<Record<string, unknown>, string, string>
  version: number
  updated_at: Timestamp
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    users: UsersTable
    auth_used_challenges: AuthUsedChallengesTable
    wallets: WalletsTable
    wallet_seeds: WalletSeedsTable
  }
}
