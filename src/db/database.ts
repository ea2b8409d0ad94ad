import type { ColumnType, Generated, Kysely, Transaction } from 'kysely'

/**
 * Row types of every table, snake_case as stored. Modules map rows to their own shapes
 * (rowToX) so these never leak past a repository.
 */
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

export interface RateLimitCountersTable {
  bucket: string
  window_start: Date
  hits: number
}

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

export interface ContentBlocksTable {
  cid: string
  data: Uint8Array
  size: number
  created_at: Generated<Date>
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

export interface IssuersTable {
  did: string
  name: string
  description: string
  website: string | null
  logo_url: string | null
  email: string | null
  require_step_up: Generated<boolean>
  created_at: Generated<Date>
  updated_at: Timestamp
}

type Json<T> = ColumnType<T, string, string>

export interface CredentialSchemasTable {
  id: string
  issuer_did: string
  name: string
  description: string
  version: string
  attributes: Json<Array<{ name: string; data_type: string; description: string; required: boolean }>>
  extensions_allowed: boolean
  allowed_extensions: Json<string[]>
  evidence_allowed: boolean
  allowed_evidence: Json<string[]>
  ipfs_hash: string
  on_chain: boolean
  blockchain_tx: string
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface CredentialTemplatesTable {
  id: string
  issuer_did: string
  name: string
  description: string
  credential_type: string
  schema_id: string
  fixed_attributes: Json<Record<string, unknown>>
  validity_days: number | null
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface DB {
  users: UsersTable
  auth_used_challenges: AuthUsedChallengesTable
  rate_limit_counters: RateLimitCountersTable
  service_keys: ServiceKeysTable
  content_blocks: ContentBlocksTable
  wallets: WalletsTable
  wallet_seeds: WalletSeedsTable
  issuers: IssuersTable
  credential_schemas: CredentialSchemasTable
  credential_templates: CredentialTemplatesTable
}

export type Database = Kysely<DB>
/** Repositories take either the database or a transaction as their first argument. */
export type Executor = Kysely<DB> | Transaction<DB>
