import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string, string>

/** A wallet provider whose wallet and key attestations the issuer accepts: its key, or a CA certificate its `x5c` chains to. */
export type TrustedWalletProvider = { jwk: Record<string, unknown> } | { certificate_pem: string }

export type ResponseEncryption = 'none' | 'optional' | 'required'

/** An issuer's OpenID4VCI policy (docs/openid4vci.md "Issuer policy"); no row: the defaults. */
export interface Oid4vciPoliciesTable {
  issuer_did: string
  par_required: boolean
  dpop_required: boolean
  dpop_nonce_required: boolean
  wallet_attestation_required: boolean
  key_attestation_required: boolean
  trusted_wallet_providers: Json<TrustedWalletProvider[]>
  credential_response_encryption: ResponseEncryption
  updated_at: Timestamp
}

/** A pushed authorization request (RFC 9126), by the SHA-256 (hex) of its request_uri; spent once. */
export interface Oid4vciPushedRequestsTable {
  request_uri_digest: string
  issuer_did: string
  client_id: string
  parameters: Json<Record<string, string>>
  expires_at: Timestamp
  used_at: Timestamp | null
}

// Joins the one DB interface (declaration merging) so Kysely types the tables.
declare module '../../../db/database.js' {
  interface DB {
    oid4vci_policies: Oid4vciPoliciesTable
    oid4vci_pushed_requests: Oid4vciPushedRequestsTable
  }
}
