import type { ColumnType, Generated } from 'kysely'

/** The OpenID4VP side of a presentation request (docs/openid4vp.md). */
export interface Oid4vpRequestsTable {
  request_id: string
  /** With its prefix (OID4VP 1.0 §5.9): `decentralized_identifier:<did:web>` or `redirect_uri:<response uri>`. */
  client_id: string
  response_mode: 'direct_post' | 'direct_post.jwt'
  state: string
  /** The Authorization Request's parameters, as the library validates the response against them. */
  request_payload: ColumnType<Record<string, unknown>, string, string>
  /** The `openid4vp://` URI a wallet opens (QR). */
  authorization_request: string
  /** The signed request object (JAR, `typ: oauth-authz-req+jwt`) served at request_uri; null for the unsigned redirect_uri prefix. */
  request_object: string | null
  /** Key-store id of the ephemeral ECDH-ES key responses are encrypted to (direct_post.jwt). */
  encryption_kid: string | null
  redirect_uri: string | null
  /** X.509 certificates (PEM) the request trusts besides the hosted issuers' roots and the verifier's sources; null: none. */
  trusted_roots: ColumnType<string[] | null, string | null, string | null>
  /** declined: the wallet's error response (OID4VP 1.0 §8.5), its error kept below. */
  answer: 'accepted' | 'refused' | 'declined' | null
  holder_error: string | null
  holder_error_description: string | null
  /** When the last error response arrived (a request addressed to no one stays open: answered_at stays null). */
  holder_error_at: Date | null
  presentation_id: string | null
  answered_at: Date | null
  /** Responses refused without answering the request, all of them (the table below keeps the last few). */
  refused_count: Generated<number>
  /** SHA-256 (base64url) of the response_code sent back in the redirect_uri of an accepted answer (OID4VP 1.0 §8.2). */
  response_code_hash: string | null
  response_code_redeemed_at: Date | null
  created_at: Generated<Date>
}

/** A response refused without consuming its request (docs/openid4vp.md "What consumes a request"). */
export interface Oid4vpRefusedAttemptsTable {
  id: Generated<string>
  request_id: string
  /** SHA-256 of the response as posted: the same response again is the same attempt. */
  response_hash: string
  /** Who the response says presents; proven only when holder_proof_verified. */
  holder: string | null
  holder_proof_verified: boolean
  errors: ColumnType<string[], string, string>
  received_at: Date
}

declare module '../../../db/database.js' {
  interface DB {
    oid4vp_requests: Oid4vpRequestsTable
    oid4vp_refused_attempts: Oid4vpRefusedAttemptsTable
  }
}
