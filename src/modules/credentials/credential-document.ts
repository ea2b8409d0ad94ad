import type { EvidenceAttachment } from '../../db/database.js'
import type { StatusListEntry } from '../status-list/status-list.service.js'

const VC_V1 = 'https://www.w3.org/2018/credentials/v1'

export interface CredentialDocumentInput {
  id: string
  type: string
  issuerDid: string
  subjectDid: string | null
  attributes: Record<string, unknown>
  schema: { id: string; ipfs_hash: string }
  status: StatusListEntry
  issuedAt: Date
  expiresAt: Date | null
  evidence: EvidenceAttachment[]
  extensions: string[]
  publicBaseUrl: string
}

/**
 * The credential document (the `vc` claim of a `jwt_vc_json` credential, OID4VCI Appendix A.1;
 * VC Data Model 1.1 with its JWT encoding §6.3.1). `credential_hash` is the SHA-256 of this
 * object's RFC 8785 form, so anyone holding the JWT recomputes it from the decoded `vc` claim.
 */
export function credentialDocument(input: CredentialDocumentInput): Record<string, unknown> {
  const subject: Record<string, unknown> = { ...input.attributes }
  if (input.subjectDid) subject.id = input.subjectDid
  const vc: Record<string, unknown> = {
    '@context': [VC_V1],
    id: input.id,
    type: ['VerifiableCredential', input.type],
    issuer: input.issuerDid,
    issuanceDate: input.issuedAt.toISOString(),
    credentialSubject: subject,
    credentialSchema: { id: `${input.publicBaseUrl}/api/ipfs/${input.schema.ipfs_hash}`, type: 'JsonSchema', schemaId: input.schema.id },
    credentialStatus: input.status,
  }
  if (input.expiresAt) vc.expirationDate = input.expiresAt.toISOString()
  if (input.evidence.length) {
    vc.evidence = input.evidence.map((e) => ({ id: `ipfs://${e.ipfs_hash}`, type: ['Evidence'], name: e.label, filename: e.filename, mediaType: e.content_type, size: e.size }))
  }
  if (input.extensions.length) vc.extensions = input.extensions
  return vc
}

/** JWT claims around the document (VC-JWT: iss, sub, jti, nbf, exp mirror it). */
export function credentialJwtPayload(vc: Record<string, unknown>, input: CredentialDocumentInput): Record<string, unknown> {
  const iat = Math.floor(input.issuedAt.getTime() / 1000)
  const payload: Record<string, unknown> = { iss: input.issuerDid, jti: input.id, iat, nbf: iat, vc }
  if (input.subjectDid) payload.sub = input.subjectDid
  if (input.expiresAt) payload.exp = Math.floor(input.expiresAt.getTime() / 1000)
  return payload
}
