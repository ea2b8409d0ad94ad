import type { CredentialRow } from './credentials.types.js'

const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString())

/** The stored record in the spec's field names, with timestamps as ISO 8601. */
export function credentialView(row: CredentialRow, issuerName: string, publicBaseUrl: string) {
  return {
    id: row.id,
    issuer_did: row.issuer_did,
    issuer_name: issuerName,
    owner_did: row.owner_did,
    credential_type: row.credential_type,
    schema_id: row.schema_id,
    template_id: row.template_id,
    credential_preview: row.credential_preview,
    credential_data: row.credential_data,
    status: row.status,
    signature_type: row.signature_type,
    kyber_encrypted: row.kyber_encrypted,
    evidence_attachments: row.evidence_attachments,
    evidence_required: row.evidence_required,
    extensions: row.extensions,
    jwt: row.jwt,
    anonymous_credential: row.anonymous_credential,
    bbs_signature: row.bbs_signature,
    credential_hash: row.credential_hash,
    ipfs_hash: row.ipfs_hash,
    on_chain: row.on_chain,
    blockchain_tx_hash: row.blockchain_tx_hash,
    revocation_blockchain_tx: row.revocation_blockchain_tx,
    credential_status: {
      status_list_credential: `${publicBaseUrl}/api/status-lists/${row.status_list_id}`,
      status_list_index: String(row.status_list_index),
    },
    expiration_date: iso(row.expiration_date),
    revoked_at: iso(row.revoked_at),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    format: row.format,
    signing_did: row.signing_did ?? row.issuer_did,
  }
}
