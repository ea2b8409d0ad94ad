import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ValidationError } from '../errors.js'
import { JSON_LIMITS, nestingPastLimit, pathText } from '../json-limits.js'

/**
 * JSON request bodies: nesting is counted on the text before Fastify's own parser runs, so no body
 * deeper than JSON_LIMITS.documentDepth is parsed at all. Parsing a megabyte of `[` holds the event
 * loop far longer than the scan, which stops at the first bracket past the limit; and no schema or
 * service downstream ever meets a deeper value, whatever its schema says. Free-form fields have
 * their own, tighter limits in the validation layer.
 */
async function jsonBodyPlugin(app: FastifyInstance): Promise<void> {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig
  const parse = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning)
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const path = nestingPastLimit(body as string, JSON_LIMITS.documentDepth)
    if (!path) return parse(request, body as string, done)
    const problem = `must not nest deeper than ${JSON_LIMITS.documentDepth} levels`
    done(
      new ValidationError(`body${pathText(path)} ${problem}`, {
        details: { fields: [{ field: ['body', ...path.slice(0, 4)].join('.'), problem }] },
      }),
      undefined,
    )
  })
}

export default fp(jsonBodyPlugin, { name: 'json-body' })
