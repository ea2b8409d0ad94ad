import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** A key a caller sent with a creating POST, and the resource its first success created. */
export interface IdempotencyKeysTable {
  /** The authenticated DID: keys are the caller's own, another caller's equal key is another key. */
  caller_did: string
  /** Method and path, e.g. `POST /api/issuer/did:key:z…/issue`. */
  route: string
  key: string
  /** SHA-256 (hex) of method, route and the RFC 8785 form of the body. */
  fingerprint: string
  resource_id: string
  /** What the first answer showed once and the service keeps nowhere else, sealed (SecretBox, purpose `idempotency`). */
  sealed_secret: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>
  created_at: Timestamp
  expires_at: Timestamp
}

// Joins the one DB interface (declaration merging) so Kysely types the table.
declare module '../../db/database.js' {
  interface DB {
    idempotency_keys: IdempotencyKeysTable
  }
}
