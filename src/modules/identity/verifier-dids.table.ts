import type { Generated } from 'kysely'

/** A verifier's service-hosted did:web (`<service did>:verifiers:<web_id>`), which signs its OpenID4VP request objects. */
export interface VerifierWebDidsTable {
  web_id: string
  verifier_did: string
  created_at: Generated<Date>
}

// Joins the one DB interface (declaration merging) so Kysely types it.
declare module '../../db/database.js' {
  interface DB {
    verifier_web_dids: VerifierWebDidsTable
  }
}
