import { Type, type Static } from '@sinclair/typebox'
import { EvidenceAttachment } from '../credentials/evidence-attachment.schemas.js'
import { ACTIVITY_TYPES, type ActivityRow } from './wallet-activity.js'
import type { WalletCredentialRow } from './wallet-credentials.repository.js'
import type { EvidenceRow } from './wallet-evidence.repository.js'
import type { ShareRow } from './wallet-shares.repository.js'

const Json = Type.Record(Type.String(), Type.Unknown())
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()])
export const RecordId = Type.String({ minLength: 1, maxLength: 100 })
const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString())

/** A wallet listing entry: the spec's fields first, then additive ones the holder needs. */
export const WalletCredential = Type.Object({
  id: Type.String(),
  issuer_did: Type.String(),
  issuer_name: Type.String(),
  credential_type: Type.String(),
  credential_preview: Json,
  credential_data: Json,
  ipfs_hash: Type.String(),
  status: Type.String({ description: "The issuer's status: active or revoked" }),
  signature_type: Type.String(),
  evidence_attachments: Type.Array(EvidenceAttachment),
  extensions: Type.Array(Type.String()),
  owner_did: Type.String(),
  schema_id: Type.String(),
  credential_hash: Type.String(),
  kyber_encrypted: Type.Boolean(),
  jwt: Type.String(),
  anonymous_credential: Nullable(Json),
  evidence_required: Type.Array(Type.String()),
  expiration_date: Nullable(Type.String()),
  expired: Type.Boolean(),
  source: Type.Union([Type.Literal('issued'), Type.Literal('imported')], {
    description: 'issued by this service to the holder, or imported by the holder',
  }),
  withdrawn: Type.Boolean({
    description: 'withdrawn by the holder (holder-side revocation): not shared or presented any more',
  }),
  withdrawn_at: Nullable(Type.String()),
  withdrawal_reason: Nullable(Type.String()),
  created_at: Type.String(),
})

export function walletCredentialView(row: WalletCredentialRow, now: Date) {
  return {
    ...row,
    expiration_date: iso(row.expiration_date),
    expired: row.expiration_date !== null && new Date(row.expiration_date).getTime() <= now.getTime(),
    withdrawn: row.withdrawn_at !== null,
    withdrawn_at: iso(row.withdrawn_at),
    created_at: new Date(row.created_at).toISOString(),
  }
}

export const Share = Type.Object({
  id: Type.String(),
  credential_id: Type.String(),
  purpose: Type.String(),
  status: Type.Union([
    Type.Literal('active'),
    Type.Literal('expired'),
    Type.Literal('used_up'),
    Type.Literal('revoked'),
  ]),
  expires_at: Type.String(),
  max_uses: Nullable(Type.Integer()),
  uses: Type.Integer(),
  revoked_at: Nullable(Type.String()),
  last_used_at: Nullable(Type.String()),
  created_at: Type.String(),
})

export function shareView(row: ShareRow, now: Date) {
  const status = row.revoked_at
    ? 'revoked'
    : new Date(row.expires_at) <= now
      ? 'expired'
      : row.max_uses !== null && row.uses >= row.max_uses
        ? 'used_up'
        : 'active'
  return {
    id: row.id,
    credential_id: row.credential_id,
    purpose: row.purpose,
    status: status as 'active' | 'expired' | 'used_up' | 'revoked',
    expires_at: new Date(row.expires_at).toISOString(),
    max_uses: row.max_uses,
    uses: row.uses,
    revoked_at: iso(row.revoked_at),
    last_used_at: iso(row.last_used_at),
    created_at: new Date(row.created_at).toISOString(),
  }
}

export const EvidenceRecord = Type.Object({
  id: Type.String(),
  label: Type.String(),
  filename: Type.String(),
  ipfs_hash: Type.String(),
  gateway_url: Type.String(),
  content_type: Type.String(),
  size: Type.Integer(),
  kyber_encrypted: Type.Boolean(),
  created_at: Type.String(),
})

export function evidenceView(row: EvidenceRow, attachment: Static<typeof EvidenceAttachment>) {
  return {
    ...attachment,
    id: row.id,
    kyber_encrypted: row.kyber_encrypted,
    created_at: new Date(row.created_at).toISOString(),
  }
}

export const Activity = Type.Object({
  id: Type.String({ description: 'position in the log (increasing)' }),
  holder_did: Type.String(),
  type: Type.String({ description: `one of ${ACTIVITY_TYPES.join(', ')}` }),
  credential_id: Nullable(Type.String()),
  details: Json,
  created_at: Type.String(),
})

export const activityView = (row: ActivityRow) => ({ ...row, created_at: new Date(row.created_at).toISOString() })

const Counts = Type.Record(Type.String(), Type.Integer())

export const Statistics = Type.Object({
  credentials: Type.Object({
    total: Type.Integer(),
    active: Type.Integer(),
    revoked: Type.Integer(),
    withdrawn: Type.Integer(),
    expired: Type.Integer(),
    by_source: Type.Object({ issued: Type.Integer(), imported: Type.Integer() }),
    by_type: Counts,
    by_issuer: Counts,
  }),
  shares: Type.Object({
    total: Type.Integer(),
    active: Type.Integer(),
    revoked: Type.Integer(),
    expired: Type.Integer(),
    accesses: Type.Integer(),
  }),
  evidence: Type.Object({ count: Type.Integer(), total_bytes: Type.Integer() }),
  credential_requests: Type.Object({ total: Type.Integer(), by_status: Counts }),
  presentations: Type.Object({ total: Type.Integer(), by_status: Counts }),
  activities: Type.Object({ total: Type.Integer(), by_type: Counts, last_activity_at: Nullable(Type.String()) }),
  generated_at: Type.String(),
})
