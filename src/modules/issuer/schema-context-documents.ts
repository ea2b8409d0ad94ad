import { NotFoundError } from '../../errors.js'
import type { LocalDocuments } from '../credentials/formats/local-documents.js'
import type { IssuerService } from './issuer.service.js'
import { schemaContext, schemaContextV1 } from './schema-documents.js'

const CONTEXT_PATH = /^\/api\/schemas\/([^/?#]+)\/(context|context-v1)\.jsonld$/

/**
 * The schema contexts this service serves (`GET /api/schemas/:id/context.jsonld?type=`, and
 * `context-v1.jsonld` for VCDM 1.1), answered
 * for its own JSON-LD processing without an HTTP round trip to itself: the same document the
 * route sends, made from the schema record. Undefined for any other URL, or a schema it lacks.
 */
export function schemaContextDocuments(
  issuers: Pick<IssuerService, 'publicSchema'>,
  publicBaseUrl: string,
): LocalDocuments {
  return async (url) => {
    if (!url.startsWith(`${publicBaseUrl}/`) || url.includes('#')) return undefined
    const [path = '', query = ''] = url.slice(publicBaseUrl.length).split('?', 2)
    const match = CONTEXT_PATH.exec(path)
    if (!match) return undefined
    let schemaId: string
    try {
      schemaId = decodeURIComponent(match[1]!)
    } catch {
      return undefined
    }
    // Only what the route answers (schemaContextUrl): the type, once, and no other parameter.
    const params = new URLSearchParams(query)
    if ([...params.keys()].some((k) => k !== 'type') || params.getAll('type').length > 1) return undefined
    const schema = await issuers.publicSchema(schemaId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return undefined
      throw error
    })
    const build = match[2] === 'context-v1' ? schemaContextV1 : schemaContext
    return schema && build(schema, publicBaseUrl, params.get('type') ?? undefined)
  }
}
