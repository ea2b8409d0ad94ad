/**
 * DID documents (DID Core §5 data model) and the document of DIDs registered with this service.
 */
import { canonicalPublicKey, publicKeyToMultibase } from '../../crypto/did-key.js'

export interface VerificationMethod {
  id: string
  type: string
  controller: string
  publicKeyBase58?: string
  publicKeyMultibase?: string
  publicKeyJwk?: Record<string, unknown>
  [property: string]: unknown
}

/** A relationship entry is a reference to a verification method or an embedded one (DID Core §5.3). */
export type VerificationReference = string | VerificationMethod

/** DID Core §5 data model, loosely typed: documents from the web are checked where used. */
export interface DidDocument {
  '@context'?: string | (string | Record<string, unknown>)[]
  id: string
  controller?: string | string[]
  alsoKnownAs?: string[]
  verificationMethod?: VerificationMethod[]
  authentication?: VerificationReference[]
  assertionMethod?: VerificationReference[]
  keyAgreement?: VerificationReference[]
  capabilityInvocation?: VerificationReference[]
  capabilityDelegation?: VerificationReference[]
  service?: Record<string, unknown>[]
  [property: string]: unknown
}

export const DID_V1 = 'https://www.w3.org/ns/did/v1'
export const MULTIKEY_V1 = 'https://w3id.org/security/multikey/v1'

/**
 * The document of a DID registered with this service, in the current Multikey form
 * (W3C Controlled Identifiers v1.0 §2.2.2). The key id defaults to the key's own multibase,
 * so it is stable and derivable without storage.
 */
export function buildRegisteredDidDocument(
  did: string,
  ed25519PublicKey: Uint8Array,
  options: { keyId?: string } = {},
): DidDocument {
  const multibase = publicKeyToMultibase('ed25519', canonicalPublicKey('ed25519', ed25519PublicKey))
  const id = `${did}#${options.keyId ?? multibase}`
  return {
    '@context': [DID_V1, MULTIKEY_V1],
    id: did,
    verificationMethod: [{ id, type: 'Multikey', controller: did, publicKeyMultibase: multibase }],
    authentication: [id],
    assertionMethod: [id],
  }
}
