import type { ColumnType, Generated } from 'kysely'
import type { EvidenceAttachment } from '../../db/database.js'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type Json<T> = ColumnType<T, string, string>

export interface CredentialsTable {
  id: string
  issuer_did: string
  owner_did: string | null
  credential_type: string
  schema_id: string
  template_id: string | null
  credential_preview: Json<Record<string, unknown>>
  credential_data: Json<Record<string, unknown>>
  status: string
  signature_type: string
  kyber_encrypted: boolean
  evidence_attachments: Json<EvidenceAttachment[]>
  evidence_required: Json<string[]>
  extensions: Json<string[]>
  jwt: string
  anonymous_credential: ColumnType<Record<string, unknown> | null, string | null, string | null>
  bbs_signature: string | null
  credential_hash: string
  ipfs_hash: string
  on_chain: Generated<boolean>
  blockchain_tx_hash: Generated<string>
  revocation_blockchain_tx: string | null
  status_list_id: string
  status_list_index: number
  request_id: string | null
  expiration_date: Date | null
  revoked_at: Date | null
  revocation_reason: string | null
  /** The format of `jwt`, the issued form (format-registry.ts); `jwt_vc_json` for rows before formats. */
  format: Generated<string>
  /** The DID the credential names as its issuer and that signed it; null: the login DID (credentials before signing identities). */
  signing_did: string | null
  created_at: Generated<Date>
  updated_at: Timestamp
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    credentials: CredentialsTable
  }
}
