import type { CredentialContent } from '../credential-format.js'
import { schemaContextUrl, schemaJsonSchemaUrl } from '../schema-urls.js'

import { VC_V2 } from '../../../../shared/vc-contexts.js'

/**
 * The payload of a `vc+jwt` credential: a VC Data Model 2.0 credential that IS the JWT claims set
 * (VC-JOSE-COSE §3.1.1), plus the registered claims `iss`, `sub`, `jti`, `iat`, `nbf`, `exp`
 * (RFC 7519 §4.1) mirroring `issuer`, the subject, `id` and the validity period, which JWT
 * libraries such as did-jwt require and check. The VCDM 2.0 context defines those claim names,
 * so the whole payload is one JSON-LD document; `credential_hash` covers it whole.
 */
export function vcdm2Payload(content: CredentialContent, issuerDid: string): Record<string, unknown> {
  const iat = Math.floor(content.issuedAt.getTime() / 1000)
  const claims: Record<string, unknown> = { iss: issuerDid, jti: content.id, iat, nbf: iat }
  if (content.subjectDid) claims.sub = content.subjectDid
  if (content.expiresAt) claims.exp = Math.floor(content.expiresAt.getTime() / 1000)
  return { ...vcdm2Credential(content, issuerDid), ...claims }
}

/** The VC Data Model 2.0 credential an issuance decided, without any securing mechanism's claims. */
export function vcdm2Credential(content: CredentialContent, issuerDid: string): Record<string, unknown> {
  const subject: Record<string, unknown> = { ...content.attributes }
  if (content.subjectDid) subject.id = content.subjectDid
  const credential: Record<string, unknown> = {
    '@context': [VC_V2, schemaContextUrl(content.publicBaseUrl, content.schema.id, content.type)],
    id: content.id,
    type: ['VerifiableCredential', content.type],
    issuer: issuerDid,
    validFrom: content.issuedAt.toISOString(),
  }
  if (content.expiresAt) credential.validUntil = content.expiresAt.toISOString()
  credential.credentialSubject = subject
  credential.credentialSchema = {
    id: schemaJsonSchemaUrl(content.publicBaseUrl, content.schema.id),
    type: 'JsonSchema',
  }
  credential.credentialStatus = content.status
  if (content.evidence.length) {
    credential.evidence = content.evidence.map((e) => ({
      id: `ipfs://${e.ipfs_hash}`,
      type: ['Evidence'],
      name: e.label,
      filename: e.filename,
      mediaType: e.content_type,
      size: e.size,
    }))
  }
  if (content.extensions.length) credential.extensions = content.extensions
  return credential
}
