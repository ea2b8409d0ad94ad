import type { Generated } from 'kysely'
import type { SigningMethod } from '../../db/database.js'

/** Every DID an issuer signs as, mapped to its login DID (the spec's `issuer_did`). */
export interface IssuerSigningDidsTable {
  did: string
  issuer_did: string
  method: SigningMethod
  /** For a did:key, the type of its one key; null for did:webs, which carry several. */
  key_type: string | null
  created_at: Generated<Date>
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    issuer_signing_dids: IssuerSigningDidsTable
  }
}
