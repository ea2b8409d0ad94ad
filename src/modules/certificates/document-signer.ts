import type { KeyObject } from 'node:crypto'

/**
 * An issuer's mdoc Document Signer (ISO/IEC 18013-5 §9.1.2.4, Annex B.1.4): the P-256 key that
 * signs Mobile Security Objects and its certificate chain, the DS certificate first. The IACA root
 * is not in the chain: a verifier holds it as its trust anchor.
 */
export interface DocumentSigner {
  /** The issuer profile's DID the certificates belong to. */
  issuerDid: string
  privateKey: KeyObject
  /** DER certificates for COSE `x5chain` (RFC 9360): the DS certificate first. */
  chain: Uint8Array[]
}

/** The certificates module's answer to the rest of the service (filled in its plugin). */
export interface DocumentSigners {
  /** The issuer's current Document Signer, with its IACA root and DS certificate made on first use. */
  documentSigner(issuerDid: string): Promise<DocumentSigner>
  /** DER IACA roots of every issuer hosted here: what this service's verifiers trust for mdoc by default. */
  hostedRoots(): Promise<Uint8Array[]>
  /** The issuer hosted here a certificate (DER) belongs to; undefined for one of another. */
  issuerOfCertificate(der: Uint8Array): Promise<string | undefined>
}
