import type { KeyObject } from 'node:crypto'

/**
 * What signs a verifier's request objects under an X.509 client id (OID4VP 1.0 §5.9.3
 * x509_san_dns, x509_hash): the access certificate's key and the `x5c` header (RFC 7515 §4.1.6)
 * of its chain, the access certificate first and without the root (HAIP 1.0 §5: a wallet holds
 * the trust anchor).
 */
export interface VerifierAccessSigner {
  verifierDid: string
  privateKey: KeyObject
  /** Base64 (not url) DER certificates, the access certificate first. */
  x5c: string[]
  /** The access certificate's subjectAltName dNSNames. */
  dnsNames: string[]
}

/** The certificates module's answer to the verifier side (filled in its plugin). */
export interface VerifierAccess {
  /** The verifier's current access certificate and key, its chain made on first use. */
  accessSigner(verifierDid: string): Promise<VerifierAccessSigner>
}
