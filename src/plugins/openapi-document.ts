import { OPENAPI_EXAMPLES } from './openapi-examples.js'

/** The parts of an OpenAPI 3.0 document this touches. */
interface MediaType {
  schema?: unknown
  example?: unknown
}
interface Operation {
  operationId?: string
  requestBody?: { content?: Record<string, MediaType> }
  responses?: Record<string, { content?: Record<string, MediaType> }>
}
interface Document {
  paths?: Record<string, Record<string, Operation>>
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'])

const words = (text: string): string[] => text.split(/[^A-Za-z0-9]+/).filter(Boolean)
const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1)

/**
 * An operation's id from its method and path, for clients generated from the document (OpenAPI
 * 3.0 §4.7.10, "operationId ... MUST be unique"): the method, then the path's words without the
 * `/api` prefix, a parameter only where it ends the path ("By" its name). POST /api/issuer/{did}/issue
 * is postIssuerIssue, GET /api/issuer/{did}/schemas/{schema_id} getIssuerSchemasBySchemaId.
 */
export function operationIdFor(method: string, path: string): string {
  const segments = path
    .replace(/^\/api(?=\/|$)/, '')
    .split('/')
    .filter(Boolean)
  let end = segments.length
  while (end > 0 && /^\{.*\}$/.test(segments[end - 1]!)) end--
  const named = segments
    .slice(0, end)
    .filter((segment) => !/^\{.*\}$/.test(segment))
    .flatMap(words)
  const trailing = segments.slice(end).map((segment) => words(segment.slice(1, -1)).map(capital).join('') || 'Path')
  return method.toLowerCase() + named.map(capital).join('') + (trailing.length ? `By${trailing.join('And')}` : '')
}

/**
 * The document's finishing pass (@fastify/swagger's transformObject): an operationId on every
 * operation (a route schema's own `operationId` wins), and the examples of openapi-examples.ts.
 * Two operations with one id is a programming error, reported here rather than published.
 */
export function finishOpenApiDocument<T>(doc: T): T {
  const paths = (doc as Document).paths ?? {}
  const seen = new Map<string, string>()
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!METHODS.has(method)) continue
      const route = `${method.toUpperCase()} ${path}`
      operation.operationId ??= operationIdFor(method, path)
      const other = seen.get(operation.operationId)
      if (other)
        throw new Error(
          `OpenAPI: ${route} and ${other} would share the operationId ${operation.operationId}; give one an explicit schema.operationId`,
        )
      seen.set(operation.operationId, route)
      const examples = OPENAPI_EXAMPLES[route]
      if (!examples) continue
      const body = operation.requestBody?.content?.['application/json']
      if (body && examples.request !== undefined) body.example = examples.request
      for (const [status, example] of Object.entries(examples.responses ?? {})) {
        const media = operation.responses?.[status]?.content?.['application/json']
        if (media) media.example = example
      }
    }
  }
  return doc
}
