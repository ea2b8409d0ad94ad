import type { Generated } from 'kysely'

/**
 * Which certificate of an issuer's chain: its IACA root, the mdoc Document Signer (ISO/IEC 18013-5
 * Annex B), or a leaf for the SD-JWT VC key (`credential`) or the signed-metadata key (`metadata`).
 */
export type CertificateUse = 'iaca' | 'document_signer' | 'credential' | 'metadata'
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
