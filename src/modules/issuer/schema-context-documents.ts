import { NotFoundError } from '../../errors.js'
import type { LocalDocuments } from '../credentials/formats/data-integrity/document-loader.js'
import type { IssuerService } from './issuer.service.js'
import { schemaContext } from './schema-documents.js'

const CONTEXT_PATH = /^\/api\/schemas\/([^/?#]+)\/context\.jsonld$/

/**
 * The schema contexts this service serves (`GET /api/schemas/:id/context.jsonld?type=`), answered
 * from the schema record without an HTTP round trip: what a JSON-LD operation on a credential
 * issued here needs beside the bundled contexts. Undefined for any other URL or an unknown schema.
 */
export function schemaContextDocuments(issuers: Pick<IssuerService, 'publicSchema'>, publicBaseUrl: string): LocalDocuments {
  const base = new URL(publicBaseUrl)
  const basePath = base.pathname.replace(/\/$/, '')
  return async (url) => {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return undefined
    }
    if (parsed.origin !== base.origin || !parsed.pathname.startsWith(basePath)) return undefined
    const match = CONTEXT_PATH.exec(parsed.pathname.slice(basePath.length))
    if (!match) return undefined
    let schemaId: string
    try {
      schemaId = decodeURIComponent(match[1]!)
    } catch {
      return undefined
    }
    try {
      return schemaContext(await issuers.publicSchema(schemaId), publicBaseUrl, parsed.searchParams.get('type') ?? undefined)
    } catch (error) {
      if (error instanceof NotFoundError) return undefined
      throw error
    }
  }
}
