import type { Selectable } from 'kysely'
import type { PresentationsTable } from './presentation.table.js'

export type PresentationRow = Selectable<PresentationsTable>

/** A presentation as submitted (holder approval or direct submission), before any verification. */
export interface SubmittedPresentation {
  id: string
  request_id: string | null
  prover_did: string
  verifier_did: string
  presentation_type: string
  credential_ids: string[]
  presentation_jwt: string
  at: Date
}
