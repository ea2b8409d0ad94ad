import type { ColumnType, Generated } from 'kysely'
import type { EvidenceAttachment } from '../../db/database.js'

type Json<T> = ColumnType<T, string, string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>

/** A credential the holder imported after verification (docs/wallet.md "Import"). */
export interface WalletImportsTable {
  id: string
  holder_did: string
  issuer_did: string
  issuer_name: string
  source_id: string
  credential_type: string
  schema_id: string
  credential_preview: Json<Record<string, unknown>>
  credential_data: Json<Record<string, unknown>>
  evidence_attachments: Json<EvidenceAttachment[]>
  extensions: Json<string[]>
  /** The credential as imported, in `format` (format-registry.ts). */
  jwt: string
  format: Generated<string>
  credential_hash: string
  ipfs_hash: string
  status: 'active' | 'revoked'
  status_checked_at: Date
  issued_at: Date | null
  expiration_date: Date | null
  created_at: ColumnType<Date, Date | string | undefined, never>
}

export interface WalletWithdrawalsTable {
  holder_did: string
  credential_id: string
  reason: string | null
  withdrawn_at: Date
}

export interface WalletSharesTable {
  id: string
  holder_did: string
  credential_id: string
  token_hash: string
  purpose: string
  expires_at: Date
  max_uses: number | null
  uses: Generated<number>
  revoked_at: NullableTimestamp
  last_used_at: NullableTimestamp
  created_at: Date
}

export interface WalletEvidenceTable {
  id: string
  holder_did: string
  label: string
  filename: string
  ipfs_hash: string
  content_type: string
  /** bigint: a string from node-postgres, a number from PGlite; read through Number(). */
  size: ColumnType<string | number, number, never>
  kyber_encrypted: boolean
  created_at: Date
}

export interface WalletActivitiesTable {
  /** bigserial: read as text (`id::text`), the two drivers return bigint differently. */
  id: Generated<string>
  holder_did: string
  type: string
  credential_id: string | null
  details: Json<Record<string, unknown>>
  created_at: ColumnType<Date, Date | string | undefined, never>
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    wallet_imports: WalletImportsTable
    wallet_withdrawals: WalletWithdrawalsTable
    wallet_shares: WalletSharesTable
    wallet_evidence: WalletEvidenceTable
    wallet_activities: WalletActivitiesTable
  }
}
