import type { Generated } from 'kysely'

/** Which certificate of an issuer's mdoc chain (ISO/IEC 18013-5 Annex B): its IACA root or a Document Signer. */
export type CertificateUse = 'iaca' | 'document_signer'
export type CertificateStatus = 'active' | 'retired'

export interface IssuerCertificatesTable {
  id: string
  issuer_did: string
  use: CertificateUse
  pem: string
  /** The key store's kid of the certified key; null for an outside IACA, whose key is not ours. */
  key_id: string | null
  not_before: Date
  not_after: Date
  /** One active certificate per (issuer, use); retired ones stay listed for credentials they signed. */
  status: CertificateStatus
  created_at: Generated<Date>
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    issuer_certificates: IssuerCertificatesTable
  }
}
