import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string, string>

/** What a wallet is told to type as tx_code (OID4VCI 1.0 §4.1.1). */
export interface TxCodeSpec {
  length: number
  input_mode: 'numeric' | 'text'
  description?: string
}

/** The OpenID4VCI side of a spec offer (docs/openid4vci.md "Offers"). */
export interface Oid4vciOffersTable {
  offer_id: string
  issuer_did: string
  /** The unguessable handle in the offer's public `credential_offer_uri`. */
  reference: string
  configuration_id: string
  /** SHA-256 (hex) of the pre-authorized code; null for an authorization-code offer. */
  pre_authorized_code_digest: string | null
  code_used_at: Timestamp | null
  tx_code_digest: string | null
  /** Wrong tx_codes sent with the code so far; at TX_CODE_MAX_FAILURES the code is spent. */
  tx_code_failures: ColumnType<number, number | undefined, number>
  tx_code_spec: Json<TxCodeSpec | null>
  issuer_state_digest: string | null
  dpop_required: boolean
  requires_approval: boolean
  batch_size: number
  created_at: Generated<Date>
}

/**
 * What one access token may obtain: its credential request (consumed once), then the deferred
 * transaction and the notification id of what was issued.
 */
export interface Oid4vciGrantsTable {
  id: string
  offer_id: string
  issuer_did: string
  dpop_jkt: string | null
  expires_at: Timestamp
  used_at: Timestamp | null
  holder_did: string | null
  credential_ids: Json<string[]>
  notification_id: string | null
  transaction_id: string | null
  request_id: string | null
  /** The holder keys of a deferred request (each proof's DID and JWK): the copies its delivery issues. */
  holder_keys: Json<Array<{ did: string; jwk: Record<string, unknown> }> | null>
  /** The notification events (OID4VCI 1.0 §11) the wallet sent, each recorded once. */
  notified_events: ColumnType<string[], string | undefined, string>
  created_at: Generated<Date>
}

/** A c_nonce of the nonce endpoint, by its SHA-256 (hex); spent once. */
export interface Oid4vciNoncesTable {
  nonce_digest: string
  issuer_did: string
  expires_at: Timestamp
  used_at: Timestamp | null
}

/** A single-use authorization code (RFC 6749 §4.1.2) of a holder signed in by DID challenge, with its PKCE challenge (RFC 7636, S256). */
export interface Oid4vciAuthorizationCodesTable {
  code_digest: string
  offer_id: string
  issuer_did: string
  holder_did: string
  client_id: string
  redirect_uri: string
  code_challenge: string
  expires_at: Timestamp
  used_at: Timestamp | null
}

/**
 * A DPoP proof seen (RFC 9449 §11.1), by the SHA-256 (hex) of its key thumbprint and `jti`, until
 * its `iat` leaves the accepted window; a second proof with the same pair is a replay.
 */
export interface Oid4vciDpopProofsTable {
  proof_digest: string
  expires_at: Timestamp
}

// Joins the one DB interface (declaration merging) so Kysely types the tables.
declare module '../../../db/database.js' {
  interface DB {
    oid4vci_offers: Oid4vciOffersTable
    oid4vci_grants: Oid4vciGrantsTable
    oid4vci_nonces: Oid4vciNoncesTable
    oid4vci_authorization_codes: Oid4vciAuthorizationCodesTable
    oid4vci_dpop_proofs: Oid4vciDpopProofsTable
  }
}
