import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>

/** The three proofs of control (docs/domains.md). */
export type DomainProofMethod = 'well_known' | 'dns_txt' | 'did_configuration'
/** pending (challenge issued) → verified | failed; a failed re-check leaves `verified` standing. */
export type DomainStatus = 'pending' | 'verified' | 'failed'

/** A token the DID must publish; single use, expires. Superseded by the next one for the same DID and domain. */
export interface DomainChallengesTable {
  id: string
  did: string
  /** Canonical ASCII form (domain-name.ts). */
  domain: string
  /** 256 random bits, base64url; published by the domain controller, so not a secret once used. */
  token: string
  created_at: Timestamp
  expires_at: Timestamp
  used_at: NullableTimestamp
}

/** The verification status of one domain for one DID (several DIDs may link one domain). */
export interface DomainVerificationsTable {
  did: string
  domain: string
  status: ColumnType<DomainStatus, DomainStatus, DomainStatus>
  /** Method of the standing verification. */
  method: ColumnType<DomainProofMethod | null, DomainProofMethod | null | undefined, DomainProofMethod | null>
  verified_at: NullableTimestamp
  /** For did_configuration: the Domain Linkage Credential's `exp`; null when the proof does not expire. */
  valid_until: NullableTimestamp
  last_checked_at: NullableTimestamp
  /** Client-safe reason of the last failed check (never an internal address). */
  last_error: ColumnType<string | null, string | null | undefined, string | null>
  created_at: Timestamp
  updated_at: Timestamp
}

// Joins the one DB interface (declaration merging) so Kysely types the tables.
declare module '../../db/database.js' {
  interface DB {
    domain_challenges: DomainChallengesTable
    domain_verifications: DomainVerificationsTable
  }
}
