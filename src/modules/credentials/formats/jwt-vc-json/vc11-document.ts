import type { CredentialContent } from '../credential-format.js'
import { VC_V1 } from '../../../../shared/vc-contexts.js'


/**
 * The credential document (the `vc` claim of a `jwt_vc_json` credential, OID4VCI Appendix A.1;
 * VC Data Model 1.1 with its JWT encoding §6.3.1). `credential_hash` is the SHA-256 of this
 * object's RFC 8785 form, so anyone holding the JWT recomputes it from the decoded `vc` claim.
 */
export function vc11Document(content: CredentialContent, issuerDid: string): Record<string, unknown> {
  const subject: Record<string, unknown> = { ...content.attributes }
  if (content.subjectDid) subject.id = content.subjectDid
  const vc: Record<string, unknown> = {
    '@context': [VC_V1],
    id: content.id,
    type: ['VerifiableCredential', content.type],
    issuer: issuerDid,
    issuanceDate: content.issuedAt.toISOString(),
    credentialSubject: subject,
    credentialSchema: { id: `${content.publicBaseUrl}/api/ipfs/${content.schema.ipfs_hash}`, type: 'JsonSchema', schemaId: content.schema.id },
    credentialStatus: content.status,
  }
  if (content.expiresAt) vc.expirationDate = content.expiresAt.toISOString()
  if (content.evidence.length) {
    vc.evidence = content.evidence.map((e) => ({ id: `ipfs://${e.ipfs_hash}`, type: ['Evidence'], name: e.label, filename: e.filename, mediaType: e.content_type, size: e.size }))
  }
  if (content.extensions.length) vc.extensions = content.extensions
  return vc
}

/** JWT claims around the document (VC-JWT: iss, sub, jti, nbf, exp mirror it). */
export function vc11JwtPayload(vc: Record<string, unknown>, content: CredentialContent, issuerDid: string): Record<string, unknown> {
  const iat = Math.floor(content.issuedAt.getTime() / 1000)
  const payload: Record<string, unknown> = { iss: issuerDid, jti: content.id, iat, nbf: iat, vc }
  if (content.subjectDid) payload.sub = content.subjectDid
  if (content.expiresAt) payload.exp = Math.floor(content.expiresAt.getTime() / 1000)
  return payload
}
