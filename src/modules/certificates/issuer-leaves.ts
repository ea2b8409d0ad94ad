import type { KeyObject } from 'node:crypto'

/** A signing key and its certificate chain for `x5c` (RFC 7515 §4.1.6): the leaf first, the IACA root left out. */
export interface CertifiedKey {
  privateKey: KeyObject
  /** DER certificates, the leaf first. */
  chain: Uint8Array[]
}

/** The key an issuer signs its SD-JWT VCs with, as the identity module knows it. */
export interface CredentialKey {
  /** The key store's kid. */
  kid: string
  publicKey: KeyObject
}

/** What the identity module tells the certificates module of an issuer (it registers the source). */
export interface IssuerKeySource {
  /** The issuer's credential issuer identifier and, when its SD-JWT VCs name it as `iss`, their signing key. */
  issuerKeys(issuerDid: string): Promise<{ issuerUrl: string; credentialKey?: CredentialKey } | undefined>
}

/**
 * The leaves an issuer's IACA certifies beside the mdoc Document Signer (docs/certificates.md):
 * made on first use, renewed before they end or when what they certify changed. Undefined answers
 * mean the issuer chains to an outside IACA, whose key is not here to issue them.
 */
export interface IssuerLeafCertificates {
  /** DER chain (leaf first) certifying the SD-JWT VC key for `iss` = issuerUrl (SD-JWT VC §3.5). */
  credentialChain(issuerDid: string, key: CredentialKey, issuerUrl: string): Promise<Uint8Array[] | undefined>
  /** The key that signs the issuer's metadata (OID4VCI 1.0 §12.2.3) and its chain. */
  metadataSigner(issuerDid: string, issuerUrl: string): Promise<CertifiedKey | undefined>
  /** Registers where the issuers' credential keys come from (the identity module). */
  useKeySource(source: IssuerKeySource): void
}
