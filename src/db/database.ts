import type { Kysely, Transaction } from 'kysely'

/**
 * Kysely's one `DB` interface, empty here: each module declares the tables it owns in its
 * *.table.ts (declaration merging, `declare module '.../db/database.js'`), snake_case as stored.
 * Modules map rows to their own shapes (rowToX) so these never leak past a repository.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DB {}

export type Database = Kysely<DB>
/** Repositories take either the database or a transaction as their first argument. */
export type Executor = Kysely<DB> | Transaction<DB>

/** How an issuer signs (DESIGN.md "Issuer identity"): a did:web hosted here, service-generated did:keys, or its own did:web. */
export type SigningMethod = 'web' | 'key' | 'self'

// JSON column shapes several modules read and write (credentials, wallet, formats, verifier, presentation).

export interface EvidenceAttachment {
  label: string
  filename: string
  ipfs_hash: string
  gateway_url: string
  content_type: string
  size: number
}

export interface RequiredCredential {
  credential_type: string
  issuer_did?: string
  /** The schema the credential must be issued under (additive to the spec's fields). */
  schema_id?: string
  required_attributes?: string[]
  /** The one format it must be presented in, over OpenID4VP (additive: a format id with a DCQL face). */
  format?: string
}

export interface RequiredPredicate {
  attribute: string
  operator: string
  value: number | string
  credential_type?: string
}
