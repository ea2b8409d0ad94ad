import type { Insertable, Selectable } from 'kysely'
import type { CredentialsTable } from './credentials.table.js'

/** Rows of issued credentials, for the modules that work with them through credentials.service.ts. */
export type CredentialRow = Selectable<CredentialsTable>
export type NewCredential = Omit<
  Insertable<CredentialsTable>,
  | 'credential_preview'
  | 'credential_data'
  | 'evidence_attachments'
  | 'evidence_required'
  | 'extensions'
  | 'anonymous_credential'
> &
  Pick<
    CredentialRow,
    | 'credential_preview'
    | 'credential_data'
    | 'evidence_attachments'
    | 'evidence_required'
    | 'extensions'
    | 'anonymous_credential'
  >

export interface CredentialFilter {
  status?: string
  credential_type?: string
  subject_did?: string
  schema_id?: string
}
