import { readFileSync } from 'node:fs'
import { contexts as citizenshipContexts } from '@digitalbazaar/citizenship-context'
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context'
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context'
import { contexts as multikeyContexts } from '@digitalbazaar/multikey-context'
import { contexts as vdlAamvaContexts } from '@digitalbazaar/vdl-aamva-context'
import { contexts as vdlContexts } from '@digitalbazaar/vdl-context'
import { NotFoundError } from '../../../../errors.js'

/** A JSON-LD document as jsonld.js's document loaders answer it (JSON-LD 1.1 API §9.4 RemoteDocument). */
export interface RemoteDocument {
  contextUrl: null
  documentUrl: string
  document: unknown
}

export type DocumentLoader = (url: string) => Promise<RemoteDocument>

/** Answers a URL the service serves itself (a schema's context, a DID URL), or undefined. */
export type LocalDocuments = (url: string) => Promise<unknown>

// The W3C examples context (VCDM 2.0 §B.1: https://www.w3.org/ns/credentials/examples/v2) is in no npm package.
const examplesV2 = JSON.parse(readFileSync(new URL('./contexts/credentials-examples-v2.json', import.meta.url), 'utf8')) as unknown

/**
 * The JSON-LD contexts bundled with the service (DESIGN.md: never fetched at run time): VCDM 1.1
 * and 2.0, Data Integrity, Multikey, the W3C examples, and the driving-licence and citizenship
 * vocabularies the W3C suites issue with. Each comes from its publisher's npm package.
 */
export const STATIC_CONTEXTS: ReadonlyMap<string, unknown> = new Map<string, unknown>([
  ...credentialsContexts,
  ...dataIntegrityContexts,
  ...multikeyContexts,
  ...vdlContexts,
  ...vdlAamvaContexts,
  ...citizenshipContexts,
  ['https://www.w3.org/ns/credentials/examples/v2', examplesV2],
])

/**
 * The document loader every JSON-LD operation here uses: bundled contexts first, then what the
 * service answers itself (`local`). Anything else is refused, so a credential naming an unknown
 * context fails to canonicalize instead of making the service fetch it.
 */
export function createDocumentLoader(local?: LocalDocuments): DocumentLoader {
  return async (url) => {
    const bundled = STATIC_CONTEXTS.get(url)
    if (bundled !== undefined) return { contextUrl: null, documentUrl: url, document: bundled }
    const own = local ? await local(url) : undefined
    if (own !== undefined) return { contextUrl: null, documentUrl: url, document: own }
    throw new NotFoundError(`the JSON-LD document ${url} is not one this service bundles or serves`)
  }
}
