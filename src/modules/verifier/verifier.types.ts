import type { Selectable } from 'kysely'
import type { PresentationRequestsTable, VerifierPresetsTable, VerifiersTable } from '../../db/database.js'

/** Rows of the verifier module, for modules that read them through its service. */
export type VerifierRow = Selectable<VerifiersTable>
export type PresentationRequestRow = Selectable<PresentationRequestsTable>
export type PresetRow = Selectable<VerifierPresetsTable>
