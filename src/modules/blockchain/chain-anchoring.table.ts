import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>

/** pending (to send) → sent (in the mempool, receipt awaited) → mined | failed (the contract refused it). */
export type ChainJobStatus = 'pending' | 'sent' | 'mined' | 'failed'
export type ChainJobKind = 'batch' | 'credential-revoke' | 'schema' | 'consent-grant' | 'consent-revoke'

/** The durable outbox of chain transactions: one row per transaction to send (DESIGN.md principle 5). */
export interface ChainJobsTable {
  id: Generated<number>
  kind: ChainJobKind
  subject_id: Nullable<string>
  anchor_key: string
  payload: ColumnType<Record<string, unknown>, string, string>
  status: ColumnType<ChainJobStatus, ChainJobStatus | undefined, ChainJobStatus>
  attempts: ColumnType<number, number | undefined, number>
  next_attempt_at: Timestamp
  locked_until: Nullable<Date>
  last_error: Nullable<string>
  tx_hash: Nullable<string>
  /** bigint: PGlite and pg return it as string or number; read through Number(). */
  block_number: Nullable<string | number>
  gas_used: Nullable<string | number>
  created_at: Timestamp
  sent_at: Nullable<Date>
  mined_at: Nullable<Date>
}

/** Credential hashes to anchor: each waits for a batch, then keeps its leaf index and proof. */
export interface ChainCredentialsTable {
  id: Generated<number>
  issuer_did: string
  credential_hash: string
  credential_id: Nullable<string>
  leaf: string
  batch_job_id: Nullable<number>
  leaf_index: Nullable<number>
  proof: ColumnType<string[] | null, string | null | undefined, string | null>
  created_at: Timestamp
}

declare module '../../db/database.js' {
  interface DB {
    chain_jobs: ChainJobsTable
    chain_credentials: ChainCredentialsTable
  }
}
