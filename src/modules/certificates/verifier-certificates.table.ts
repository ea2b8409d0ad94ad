import type { ColumnType, Generated } from 'kysely'

/** A verifier's root, or the access certificate whose key signs its request objects (OID4VP 1.0 §5.9.3). */
export type VerifierCertificateUse = 'root' | 'access'

export interface VerifierCertificatesTable {
  id: string
  verifier_did: string
  use: VerifierCertificateUse
  pem: string
  /** For an imported access certificate: the CA certificates (PEM) between it and its root, issuer first. */
  chain: ColumnType<string[], string | undefined, string>
  /** The key store's kid of the certified key; null for an outside root, whose key is not ours. */
  key_id: string | null
  not_before: Date
  not_after: Date
  status: 'active' | 'retired'
  created_at: Generated<Date>
}

declare module '../../db/database.js' {
  interface DB {
    verifier_certificates: VerifierCertificatesTable
  }
}
