import type { ColumnType, Generated } from 'kysely'
import type { RequiredCredential, RequiredPredicate } from '../../db/database.js'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type Json<T> = ColumnType<T, string, string>

export interface VerifiersTable {
  did: string
  name: string
  description: string
  website: string | null
  logo_url: string | null
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface PresentationRequestsTable {
  id: string
  verifier_did: string
  presentation_type: string
  required_credentials: Json<RequiredCredential[]>
  required_predicates: Json<RequiredPredicate[]>
  purpose: string
  callback_url: string | null
  nonce: string
  status: string
  preset_id: string | null
  /** The one holder the request is addressed to; null: whoever takes it. */
  holder_did: string | null
  expires_at: Date
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface VerifierPresetsTable {
  id: string
  verifier_did: string
  name: string
  presentation_type: string
  required_credentials: Json<RequiredCredential[]>
  required_predicates: Json<RequiredPredicate[]>
  purpose: string
  callback_url: string | null
  validity_seconds: number
  created_at: Generated<Date>
  updated_at: Timestamp
}

/** A verifier's trust sources (docs/trust.md), as it last set them. */
export interface VerifierTrustTable {
  verifier_did: string
  sources: Json<TrustSource[]>
  updated_at: Date
}

/** One source of trust: X.509 certificates (IACA roots, or a pinned Document Signer) given as PEM. */
export interface TrustSource {
  type: 'x509'
  certificates: string[]
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    verifiers: VerifiersTable
    presentation_requests: PresentationRequestsTable
    verifier_presets: VerifierPresetsTable
    verifier_trust: VerifierTrustTable
  }
}
