import type { SchemaAttribute } from '../../lib/forms.ts'

export interface SchemaView {
  id: string
  name: string
  version: string
  description?: string
  attributes: SchemaAttribute[]
}
export interface TemplateView {
  id: string
  name: string
  description: string
  credential_type: string
  schema_id: string
  fixed_attributes: Record<string, unknown>
  validity_days: number | null
  format: string | null
}
export interface IssuerProfile {
  did: string
  name: string
  description: string
  website: string | null
  logo_url: string | null
}
