import { ValidationError } from '../../../../errors.js'
import type { CredentialContent } from '../credential-format.js'

/** The format identifier of SD-JWT VC (its `typ`, and OpenID4VCI's and OpenID4VP's name for it). */
export const SD_JWT_VC = 'dc+sd-jwt'

/**
 * Claims of an SD-JWT VC (draft-ietf-oauth-sd-jwt-vc §3.2.2) and what this service adds: `jti`
 * (the record id, so a presentation's declared credential_ids match) and `credential_type`.
 * Attributes may not take these names, nor those of JWT and SD-JWT (RFC 9901 §4.1).
 */
export const RESERVED_CLAIMS = [
  'iss',
  'sub',
  'aud',
  'iat',
  'nbf',
  'exp',
  'jti',
  'vct',
  'vct#integrity',
  'cnf',
  'status',
  'credential_type',
  '_sd',
  '_sd_alg',
  '...',
] as const

/** The type identifier of credentials of one schema: an https URL serving its Type Metadata (§6). */
export const vctFor = (publicBaseUrl: string, schemaId: string): string =>
  `${publicBaseUrl}/vct/${encodeURIComponent(schemaId)}`

/** This service's schema id named by a vct, or undefined for a vct from elsewhere. */
export function schemaIdOfVct(publicBaseUrl: string, vct: string): string | undefined {
  const prefix = `${publicBaseUrl}/vct/`
  return vct.startsWith(prefix) ? decodeURIComponent(vct.slice(prefix.length)) : undefined
}

/** The issuer-signed payload before the library replaces the disclosable claims by digests. */
export function sdJwtVcPayload(
  content: CredentialContent,
  iss: string,
  holderJwk: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const clash = Object.keys(content.attributes).find((name) => (RESERVED_CLAIMS as readonly string[]).includes(name))
  if (clash)
    throw new ValidationError(
      `attribute "${clash}" is a reserved claim of an SD-JWT VC: choose another name or another format`,
      { details: { attribute: clash } },
    )
  const iat = Math.floor(content.issuedAt.getTime() / 1000)
  return {
    iss,
    jti: content.id,
    iat,
    ...(content.expiresAt ? { exp: Math.floor(content.expiresAt.getTime() / 1000) } : {}),
    vct: vctFor(content.publicBaseUrl, content.schema.id),
    credential_type: content.type,
    // §3.2.2.2: the holder's key; key binding (a KB-JWT) proves possession when presented.
    ...(holderJwk ? { cnf: { jwk: holderJwk } } : {}),
    // draft-ietf-oauth-status-list §6.1: the same bit as the W3C entry, served as a Token Status List.
    status: {
      status_list: { idx: Number(content.status.statusListIndex), uri: `${content.status.statusListCredential}/token` },
    },
    ...content.attributes,
  }
}

/** Every attribute is selectively disclosable unless its schema marks it always disclosed. */
export function disclosureFrame(content: CredentialContent): { _sd: string[] } {
  const plain = new Set((content.schema.attributes ?? []).filter((a) => a.always_disclosed).map((a) => a.name))
  return { _sd: Object.keys(content.attributes).filter((name) => !plain.has(name)) }
}
