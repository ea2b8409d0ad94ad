import type { ColumnType, Generated, Kysely, Transaction } from 'kysely'

/**
 * Row types of every table, snake_case as stored. Modules map rows to their own shapes
 * (rowToX) so these never leak past a repository. Over 300 lines because Kysely's `DB` type
 * names every table in one interface; the types are declarations, one per table, with no logic.
 */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

export interface UsersTable {
  did: string
  /** Multibase (z-base58btc) multicodec-prefixed public key. */
  public_key: string
  key_type: string
  name: string
  email: string
  avatar_cid: string | null
  avatar_content_type: string | null
  bio: string | null
  /** 'did-key' (derived, created on first login) or 'registered'. */
  origin: string
  created_at: Generated<Date>
  updated_at: Generated<Date>
  last_login_at: Date | null
}

export interface AuthUsedChallengesTable {
  id: string
  expires_at: Date
}

export interface RateLimitCountersTable {
  bucket: string
  window_start: Date
  hits: number
}

export interface InstanceSettingsTable {
  name: string
  value: string
  recorded_at: Generated<Date>
}

export interface ServiceKeysTable {
  kid: string
  owner: string
  purpose: string
  algorithm: string
  public_key: Uint8Array
  private_key_enc: Uint8Array
  status: string
  created_at: Generated<Date>
  retired_at: Date | null
}

export interface ContentBlocksTable {
  cid: string
  data: Uint8Array
  size: number
  created_at: Generated<Date>
}

export interface WalletsTable {
  id: string
  did: string
  wallet_name: string
  wallet_type: string
  metadata: ColumnType<Record<string, unknown>, string, string>
  created_at: Generated<Date>
  last_login_at: Date | null
}

export interface WalletSeedsTable {
  did: string
  encrypted_seed: string
  encryption: ColumnType<Record<string, unknown>, string, string>
  version: number
  updated_at: Timestamp
}

export interface IssuersTable {
  did: string
  name: string
  description: string
  website: string | null
  logo_url: string | null
  email: string | null
  require_step_up: Generated<boolean>
  /** How the issuer signs (DESIGN.md "Issuer identity"): a did:web hosted here, service-generated did:keys, or its own did:web. */
  signing_method: Generated<SigningMethod>
  /** The path id of its hosted did:web (`/issuers/<web_id>/did.json`). */
  web_id: string
  created_at: Generated<Date>
  updated_at: Timestamp
}

export type SigningMethod = 'web' | 'key' | 'self'

/** Every DID an issuer signs as, mapped to its login DID (the spec's `issuer_did`). */
export interface IssuerSigningDidsTable {
  did: string
  issuer_did: string
  method: SigningMethod
  /** For a did:key, the type of its one key; null for did:webs, which carry several. */
  key_type: string | null
  created_at: Generated<Date>
}

type Json<T> = ColumnType<T, string, string>

export interface CredentialSchemasTable {
  id: string
  issuer_did: string
  name: string
  description: string
  version: string
  attributes: Json<Array<{ name: string; data_type: string; description: string; required: boolean; always_disclosed?: boolean }>>
  extensions_allowed: boolean
  allowed_extensions: Json<string[]>
  evidence_allowed: boolean
  allowed_evidence: Json<string[]>
  ipfs_hash: string
  on_chain: boolean
  blockchain_tx: string
  anonymous_credentials: Generated<boolean>
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

export interface StatusListsTable {
  id: string
  issuer_did: string
  purpose: string
  size: number
  multiplier: number
  offset: number
  next_counter: Generated<number>
  bits: Uint8Array
  version: Generated<number>
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface EvidenceAttachment {
  label: string
  filename: string
  ipfs_hash: string
  gateway_url: string
  content_type: string
  size: number
}

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

export interface HolderKemKeysTable {
  did: string
  public_key: Uint8Array
  custody: 'service' | 'holder'
  kid: string | null
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

export interface WalletRemovalsTable {
  holder_did: string
  credential_id: string
  removed_at: Generated<Date>
}

export interface ConsentsTable {
  id: string
  holder_did: string
  verifier_did: string
  purpose: string
  data_categories: Json<string[]>
  access_level: string
  expiration_policy: string
  expires_at: Date | null
  revoked: Generated<boolean>
  revoked_at: Date | null
  used_at: Date | null
  used_by: string | null
  on_chain: Generated<boolean>
  blockchain_tx: Generated<string>
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface VerifiersTable {
  did: string
  name: string
  description: string
  website: string | null
  logo_url: string | null
  created_at: Generated<Date>
  updated_at: Timestamp
}

export interface RequiredCredential {
  credential_type: string
  issuer_did?: string
  /** The schema the credential must be issued under (additive to the spec's fields). */
  schema_id?: string
  required_attributes?: string[]
}

export interface RequiredPredicate {
  attribute: string
  operator: string
  value: number | string
  credential_type?: string
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

export interface QrCodesTable {
  short_id: string
  kind: string
  target_id: string
  owner_did: string
  payload: string
  expires_at: Date | null
  created_at: Generated<Date>
}

export interface DB {
  users: UsersTable
  auth_used_challenges: AuthUsedChallengesTable
  rate_limit_counters: RateLimitCountersTable
  instance_settings: InstanceSettingsTable
  service_keys: ServiceKeysTable
  content_blocks: ContentBlocksTable
  wallets: WalletsTable
  wallet_seeds: WalletSeedsTable
  issuers: IssuersTable
  issuer_signing_dids: IssuerSigningDidsTable
  credential_schemas: CredentialSchemasTable
  credential_templates: CredentialTemplatesTable
  status_lists: StatusListsTable
  credentials: CredentialsTable
  holder_kem_keys: HolderKemKeysTable
  credential_offers: CredentialOffersTable
  credential_requests: CredentialRequestsTable
  wallet_removals: WalletRemovalsTable
  consents: ConsentsTable
  verifiers: VerifiersTable
  presentation_requests: PresentationRequestsTable
  verifier_presets: VerifierPresetsTable
  qr_codes: QrCodesTable
}

export type Database = Kysely<DB>
/** Repositories take either the database or a transaction as their first argument. */
export type Executor = Kysely<DB> | Transaction<DB>
