import type { Executor } from '../../db/database.js'
import type { Selectable } from 'kysely'
import type { PresentationRequestsTable, VerifierPresetsTable, VerifiersTable } from './verifier.table.js'

/** Rows of the verifier module, for modules that read them through its service. */
export type VerifierRow = Selectable<VerifiersTable>
export type PresentationRequestRow = Selectable<PresentationRequestsTable>
export type PresetRow = Selectable<VerifierPresetsTable>

/** OpenID4VP options of a new request (docs/openid4vp.md): body fields beside the spec's. */
export interface Oid4vpOptions {
  /** OID4VP 1.0 §5.9.3: signed by the verifier's hosted did:web (default) or access certificate (x509_*), or unsigned for development. */
  client_id_prefix?: 'decentralized_identifier' | 'x509_san_dns' | 'x509_hash' | 'redirect_uri'
  response_mode?: 'direct_post' | 'direct_post.jwt'
  /** OID4VP 1.0 §5.10: post has the wallet POST its metadata and a nonce to request_uri; get (default) fetches it. */
  request_uri_method?: 'get' | 'post'
  /** Where the wallet sends the user once the response is accepted (§8.2). */
  redirect_uri?: string
  /** OID4VP 1.0 §5.1, §8.4: what the holder authorizes (each item's hash goes into the KB-JWT's transaction_data_hashes). */
  transaction_data?: Array<{ type: string; credential_ids?: string[]; transaction_data_hashes_alg?: string[] }>
  /** OID4VP 1.0 §6.1.1: name the trusted roots as `trusted_authorities` (aki) on the queries of X.509-anchored formats (mdoc). */
  dcql_trusted_authorities?: boolean
  /** X.509 certificates (PEM) the request trusts besides the hosted issuers' roots and the verifier's sources. */
  trusted_roots?: string[]
}

/** A response refused without answering its request; `holder` is proven only when `holder_proof_verified`. */
export interface RefusedAttemptView {
  received_at: string
  holder: string | null
  holder_proof_verified: boolean
  errors: string[]
}

/** What a request answers about its OpenID4VP Authorization Request, beside the spec's fields. */
export interface Oid4vpFields {
  authorization_request_uri: string
  authorization_request_qr: string
  request_uri: string | null
  client_id: string
  response_uri: string
  response_mode: string
  state: string
  /** The wallet's answer once one arrived: accepted, refused, or declined (its error response). */
  answer: string | null
  /** The latest wallet error response (OID4VP 1.0 §8.5), e.g. access_denied when a holder declined; null if none. */
  holder_response: { error: string; error_description: string | null; at: string } | null
  /** Responses refused without answering the request (docs/openid4vp.md "What consumes a request"): all counted, the last few kept. */
  refused_attempts: { count: number; recent: RefusedAttemptView[] }
}

/** The OpenID4VP module, as the verifier's routes reach it (filled in by openid4vc/verifier/openid4vp.plugin.ts; no import cycle). */
export interface Oid4vpPort {
  /**
   * The OpenID4VP publication of a request about to be stored (its request object signed now);
   * `store` writes it in the transaction that inserts the request, so both exist or neither.
   */
  prepare(
    request: PresentationRequestRow,
    options: Oid4vpOptions,
  ): Promise<{ store(trx: Executor): Promise<Oid4vpFields> } | undefined>
  describe(request: PresentationRequestRow): Promise<Oid4vpFields | undefined>
  /** The presentation an accepted answer's response_code (in its redirect_uri, OID4VP 1.0 §8.2) stands for, once. */
  redeemResponseCode(request: PresentationRequestRow, code: string): Promise<{ presentation_id: string }>
}
