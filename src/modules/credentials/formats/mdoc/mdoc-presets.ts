import type { SchemaPreset } from '../credential-format.js'
import { MDOC_SCHEMAS } from './mdoc-schemas.js'

/** The ready-made mdoc schemas (the ISO mDL, the EU PID), named by their doctype. */
export const mdocPresets: readonly SchemaPreset[] = MDOC_SCHEMAS.map((schema) => ({
  id: schema.mdoc.doctype,
  description: schema.description,
  schema: { ...schema, anonymous_credentials: false },
}))
