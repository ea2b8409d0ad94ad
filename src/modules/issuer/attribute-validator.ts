import Ajv, { type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { ValidationError } from '../../errors.js'
import type { SchemaAttributeRow } from './schemas.repository.js'

/**
 * Credential attributes checked against their schema: each schema compiles once to a JSON
 * Schema validator (Ajv), cached by schema id and version of the row, and reused for every
 * issuance. Unknown attributes and wrong types are 400 naming the attribute. JSON_TYPES, the JSON
 * Schema of each data type, is also what a schema's published JSON Schema says (schema-documents.ts).
 */
export const JSON_TYPES: Record<string, object> = {
  string: { type: 'string', maxLength: 10_000 },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  email: { type: 'string', format: 'email', maxLength: 254 },
  url: { type: 'string', format: 'uri', maxLength: 2048 },
  // A file attribute holds a reference (CID or URL) to content uploaded separately.
  file: { type: 'string', minLength: 1, maxLength: 2048 },
  object: { type: 'object' },
  array: { type: 'array' },
}

const CACHE_SIZE = 1000

export class AttributeValidators {
  private readonly ajv = addFormats.default(new Ajv.default({ allErrors: true, strict: false }))
  private readonly cache = new Map<string, { full: ValidateFunction; partial: ValidateFunction }>()

  /** Throws ValidationError listing every problem. `partial`: required attributes may be absent (template defaults). */
  check(
    schema: { id: string; updated_at: Date; attributes: SchemaAttributeRow[] },
    values: Record<string, unknown>,
    partial = false,
  ): void {
    const validators = this.validators(schema)
    const validate = partial ? validators.partial : validators.full
    if (validate(values)) return
    const problems = (validate.errors ?? []).map((e) => {
      if (e.keyword === 'required')
        return `attribute "${(e.params as { missingProperty: string }).missingProperty}" is required`
      if (e.keyword === 'additionalProperties')
        return `attribute "${(e.params as { additionalProperty: string }).additionalProperty}" is not in the schema`
      return `attribute "${e.instancePath.slice(1).split('/')[0]}" ${e.message ?? 'is invalid'}`
    })
    throw new ValidationError(`Attributes do not match the schema: ${problems.join('; ')}`, { details: { problems } })
  }

  private validators(schema: { id: string; updated_at: Date; attributes: SchemaAttributeRow[] }) {
    const key = `${schema.id}@${new Date(schema.updated_at).getTime()}`
    let entry = this.cache.get(key)
    if (!entry) {
      const properties = Object.fromEntries(schema.attributes.map((a) => [a.name, JSON_TYPES[a.data_type] ?? {}]))
      const base = { type: 'object', properties, additionalProperties: false }
      const full = { ...base, required: schema.attributes.filter((a) => a.required).map((a) => a.name) }
      entry = { full: this.ajv.compile(full), partial: this.ajv.compile(base) }
      // Ajv keeps every schema it compiled (keyed by the schema object) until removeSchema: without
      // this, CACHE_SIZE would bound nothing and every schema version would stay for good. The
      // compiled functions do not need Ajv's copy.
      this.ajv.removeSchema(full)
      this.ajv.removeSchema(base)
      if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!)
      this.cache.set(key, entry)
    }
    return entry
  }
}
