import type { ColumnType, Generated } from 'kysely'
import type { SigningMethod } from '../../db/database.js'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type Json<T> = ColumnType<T, string, string>

export interface IssuersTable {
  did: string
  name: string
  description: string
  website: string | null
  logo_url: string | null
  email: string | null
  /** ISO 3166-1 alpha-2: the country its mdoc certificates name (ISO/IEC 18013-5 Annex B); null when unset. */
  country: string | null
  require_step_up: Generated<boolean>
  /** How the issuer signs (DESIGN.md "Issuer identity"): a did:web hosted here, service-generated did:keys, or its own did:web. */
  signing_method: Generated<SigningMethod>
  /** The path id of its hosted did:web (`/issuers/<web_id>/did.json`). */
  web_id: string
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface CredentialSchemasTable {
  id: string
  issuer_did: string
  name: string
  description: string
  version: string
  attributes: Json<
    Array<{ name: string; data_type: string; description: string; required: boolean; always_disclosed?: boolean }>
  >
  extensions_allowed: boolean
  allowed_extensions: Json<string[]>
  evidence_allowed: boolean
  allowed_evidence: Json<string[]>
  ipfs_hash: string
  on_chain: boolean
  blockchain_tx: string
  anonymous_credentials: Generated<boolean>
  /** ISO/IEC 18013-5: the doctype and namespace of its mdocs; null when it has none. */
  mdoc: Json<{ doctype: string; namespace: string }> | null
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface CredentialTemplatesTable {
  id: string
  issuer_did: string
  name: string
  description: string
  credential_type: string
  schema_id: string
  fixed_attributes: Json<Record<string, unknown>>
  validity_days: number | null
  /** The format it issues in (docs/formats.md); null: the default. */
  format: string | null
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface CredentialOffersTable {
  id: string
  issuer_did: string
  credential_type: string
  schema_id: string
  template_id: string | null
  attributes: Json<Record<string, unknown>>
  subject_did: string | null
  description: string
  max_uses: number | null
  uses: Generated<number>
  status: string
  expires_at: Date | null
  /** The format its redemption issues in; null: the default. */
  format: string | null
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface CredentialRequestsTable {
  id: string
  holder_did: string
  issuer_did: string
  schema_id: string
  offer_id: string | null
  credential_type: string
  attributes: Json<Record<string, unknown>>
  message: string
  status: string
  /** The format asked for (or the offer's); the approval issues in it. Null: the default. */
  format: string | null
  approval_challenge: string | null
  credential_id: string | null
  reason: string | null
  decided_at: Date | null
  created_at: Generated<Date>
  updated_at: Timestamp
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    issuers: IssuersTable
    credential_schemas: CredentialSchemasTable
    credential_templates: CredentialTemplatesTable
    credential_offers: CredentialOffersTable
    credential_requests: CredentialRequestsTable
  }
}
