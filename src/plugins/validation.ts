import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { OptionalKind } from '@sinclair/typebox'

/**
 * Bodies are validated strictly: no type coercion, so `{"did": 123}` is a 400 rather than the
 * string "123" (Fastify's default coerces). Path and query strings are text on the wire, so
 * there coercion to the declared number/boolean types stays on. Unknown body properties are
 * removed (additive clients keep working; nothing unexpected reaches a service).
 */
async function validationPlugin(app: FastifyInstance): Promise<void> {
  const base = { allErrors: false, useDefaults: true, removeAdditional: true, strict: false } as const
  const bodyAjv = addFormats.default(new Ajv.default({ ...base, coerceTypes: false }))
  const textAjv = addFormats.default(new Ajv.default({ ...base, coerceTypes: 'array' }))
  for (const ajv of [bodyAjv, textAjv]) ajv.addKeyword({ keyword: 'x-examples' })
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validate = (httpPart === 'body' ? bodyAjv : textAjv).compile(schema)
    // A body declared Type.Optional (e.g. revoke's optional {reason}) may be absent altogether.
    if (httpPart !== 'body' || (schema as Record<symbol, unknown>)[OptionalKind] !== 'Optional') return validate
    const optional = (data: unknown) => data === undefined || data === null || validate(data)
    return Object.defineProperty(optional, 'errors', { get: () => validate.errors })
  })
}

export default fp(validationPlugin, { name: 'validation' })
