import type { CredentialContent } from '../credential-format.js'
import { BITSTRING_STATUS_V1, VC_V1 } from '../../../../shared/vc-contexts.js'
import { schemaContextV1Url, schemaJsonSchemaUrl } from '../schema-urls.js'

/**
 * A date as a JWT NumericDate (RFC 7519 §2: whole seconds) and as the xsd:dateTime of that same
 * instant: VCDM 1.1 §6.3.1 maps `issuanceDate` to `nbf` and `expirationDate` to `exp`, so both
 * must say one time (verifiers such as Credo compare them exactly).
 */
function jwtInstant(date: Date): { seconds: number; dateTime: string } {
  const seconds = Math.floor(date.getTime() / 1000)
  return { seconds, dateTime: new Date(seconds * 1000).toISOString().replace('.000Z', 'Z') }
}

/**
 * The credential document (the `vc` claim of a `jwt_vc_json` credential, OID4VCI Appendix A.1;
 * VC Data Model 1.1 with its JWT encoding §6.3.1). `credential_hash` is the SHA-256 of this
 * object's RFC 8785 form, so anyone holding the JWT recomputes it from the decoded `vc` claim.
 * As JSON-LD it names the VCDM 1.1 context, the Bitstring Status List context its status entry
 * needs (Bitstring Status List §2.1) and the schema's context, so every term expands (VCDM 1.1
 * §5.3); `credentialSchema` is the schema's JSON Schema (VC JSON Schema §3.1, type JsonSchema).
 */
export function vc11Document(content: CredentialContent, issuerDid: string): Record<string, unknown> {
  const subject: Record<string, unknown> = { ...content.attributes }
  if (content.subjectDid) subject.id = content.subjectDid
  const vc: Record<string, unknown> = {
    '@context': [
      VC_V1,
      BITSTRING_STATUS_V1,
      schemaContextV1Url(content.publicBaseUrl, content.schema.id, content.type),
    ],
    id: content.id,
    type: ['VerifiableCredential', content.type],
    issuer: issuerDid,
    issuanceDate: jwtInstant(content.issuedAt).dateTime,
    credentialSubject: subject,
    credentialSchema: { id: schemaJsonSchemaUrl(content.publicBaseUrl, content.schema.id), type: 'JsonSchema' },
    credentialStatus: content.status,
  }
  if (content.expiresAt) vc.expirationDate = jwtInstant(content.expiresAt).dateTime
  if (content.evidence.length) {
    vc.evidence = content.evidence.map((e) => ({
      id: `ipfs://${e.ipfs_hash}`,
      type: ['Evidence'],
      name: e.label,
      filename: e.filename,
      mediaType: e.content_type,
      size: e.size,
    }))
  }
  if (content.extensions.length) vc.extensions = content.extensions
  return vc
}

/**
 * JWT claims around the document (VCDM 1.1 §6.3.1): `iss` = `issuer`, `sub` = the subject's `id`,
 * `jti` = `id`, `nbf` = `issuanceDate` (and `iat`), `exp` = `expirationDate`, each the same value.
 */
export function vc11JwtPayload(
  vc: Record<string, unknown>,
  content: CredentialContent,
  issuerDid: string,
): Record<string, unknown> {
  const iat = jwtInstant(content.issuedAt).seconds
  const payload: Record<string, unknown> = { iss: issuerDid, jti: content.id, iat, nbf: iat, vc }
  if (content.subjectDid) payload.sub = content.subjectDid
  if (content.expiresAt) payload.exp = jwtInstant(content.expiresAt).seconds
  return payload
}
