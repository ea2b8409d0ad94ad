import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** An OAuth 2.0 client of an issuer profile (docs/vc-api.md "Authentication"). */
export interface VcApiClientsTable {
  client_id: string
  issuer_did: string
  name: string
  /** SHA-256 (hex) of the 256-bit random secret: a plain digest suffices for a secret nobody can guess. */
  secret_digest: string
  /** The scopes it may hold, space-delimited (vc-api-scopes.ts). */
  scope: string
  created_at: Timestamp
  revoked_at: Timestamp | null
}

/** An opaque access token, by the SHA-256 (hex) of its text. */
export interface VcApiTokensTable {
  token_digest: string
  client_id: string
  /** The scopes it was granted, space-delimited: its client's or fewer. */
  scope: string
  expires_at: Timestamp
}

/** A credential issued through the VC API's `/credentials/issue`. */
export interface VcApiCredentialsTable {
  id: string
  issuer_did: string
  /** The credential's own `id`, what `/credentials/status` names; null when it has none. */
  credential_id: string | null
  format: string
  credential: string
  signing_did: string
  status_list_id: string | null
  status_list_index: number | null
  revoked_at: Timestamp | null
  created_at: Timestamp
}

// Joins the one DB interface (declaration merging) so Kysely types the tables.
declare module '../../db/database.js' {
  interface DB {
    vc_api_clients: VcApiClientsTable
    vc_api_tokens: VcApiTokensTable
    vc_api_credentials: VcApiCredentialsTable
  }
}
