import Ajv, { type SchemaValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { fullFormats } from 'ajv-formats/dist/formats.js'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { OptionalKind } from '@sinclair/typebox'
import { FREE_FORM_KEYWORD, freeFormProblem } from '../json-limits.js'

const rfc3339DateTime = (fullFormats['date-time'] as { validate: (text: string) => boolean }).validate

/**
 * `date-time` narrowed to what a JavaScript Date and a PostgreSQL timestamptz both hold. RFC 3339
 * alone lets through a leap second (`23:59:60`) and an hours-only offset (`+01`), which Date cannot
 * parse, and instants outside years 0001-9999 in UTC: each reached the database as an invalid or
 * unstorable value (500). Mended here, for every schema, rather than in each one.
 */
function isStorableDateTime(text: string): boolean {
  if (!rfc3339DateTime(text)) return false
  const instant = new Date(text)
  const year = instant.getUTCFullYear()
  return !Number.isNaN(instant.getTime()) && year >= 1 && year <= 9999
}

/** The free-form keyword: a value within JSON_LIMITS, else one error (Ajv adds the field's path). */
const freeFormJson: SchemaValidateFunction = (enabled: boolean, data: unknown) => {
  const problem = enabled ? freeFormProblem(data) : undefined
  freeFormJson.errors = problem ? [{ keyword: FREE_FORM_KEYWORD, message: problem, params: {} }] : undefined
  return problem === undefined
}

/**
 * The validators the app runs, also used by the fuzzer to know what the app must refuse.
 * Bodies are validated strictly: no type coercion, so `{"did": 123}` is a 400 rather than the
 * string "123" (Fastify's default coerces). Path and query strings are text on the wire, so
 * there coercion to the declared number/boolean types stays on. Unknown body properties are
 * removed (additive clients keep working; nothing unexpected reaches a service).
 */
export function createValidators(): { body: Ajv.default; text: Ajv.default } {
  const base = { allErrors: false, useDefaults: true, removeAdditional: true, strict: false } as const
  const body = addFormats.default(new Ajv.default({ ...base, coerceTypes: false }))
  const text = addFormats.default(new Ajv.default({ ...base, coerceTypes: 'array' }))
  for (const ajv of [body, text]) {
    ajv.addKeyword({ keyword: 'x-examples' })
    ajv.addKeyword({ keyword: FREE_FORM_KEYWORD, schemaType: 'boolean', errors: true, validate: freeFormJson })
    ajv.addFormat('date-time', { type: 'string', validate: isStorableDateTime })
  }
  return { body, text }
}

async function validationPlugin(app: FastifyInstance): Promise<void> {
  const { body: bodyAjv, text: textAjv } = createValidators()
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validate = (httpPart === 'body' ? bodyAjv : textAjv).compile(schema)
    // A body declared Type.Optional (e.g. revoke's optional {reason}) may be absent altogether.
    if (httpPart !== 'body' || (schema as Record<symbol, unknown>)[OptionalKind] !== 'Optional') return validate
    const optional = (data: unknown) => data === undefined || data === null || validate(data)
    return Object.defineProperty(optional, 'errors', { get: () => validate.errors })
  })
}

export default fp(validationPlugin, { name: 'validation' })
