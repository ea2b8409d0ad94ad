/**
 * DID resolution (W3C DID Resolution: document plus resolution and document metadata) for the
 * methods this service can answer: did:key (computed), DIDs registered here, and did:web.
 */
import type { HttpGet } from '../../adapters/http-out/guarded-fetch.js'
import { ValidationError } from '../../errors.js'
import { buildDidKeyDocument, type DidDocument } from './did-document.js'
import { didMethod, normalizeDid } from './did-normalize.js'
import { resolveDidWeb } from './did-web.js'

export interface DidResolutionResult {
  didDocument: DidDocument
  didResolutionMetadata: { contentType: string }
  didDocumentMetadata: Record<string, unknown>
}

/** DID Resolution options; `publicKeyFormat` is the did:key method's (ignored by other methods). */
export interface ResolutionOptions {
  publicKeyFormat?: string
}

export interface DidResolver {
  resolve(did: string, options?: ResolutionOptions): Promise<DidResolutionResult>
}

export interface DidResolverOptions {
  httpGet: HttpGet
  allowHttp?: boolean
  /** DIDs registered with this service, of any method; undefined when unknown. */
  lookupLocal: (did: string) => Promise<DidDocument | undefined>
  now?: () => number
  /** did:web documents are cached this long (default 60 s): a login must not cost a fetch. */
  cacheTtlMs?: number
  cacheMaxEntries?: number
}

export function createDidResolver(options: DidResolverOptions): DidResolver {
  const now = options.now ?? Date.now
  const ttl = options.cacheTtlMs ?? 60_000
  const maxEntries = options.cacheMaxEntries ?? 1000
  const cache = new Map<string, { expires: number; doc: DidDocument }>()
  // Concurrent resolutions of one did:web share one fetch.
  const inFlight = new Map<string, Promise<DidDocument>>()

  async function didWeb(did: string): Promise<DidDocument> {
    const hit = cache.get(did)
    if (hit && hit.expires > now()) return structuredClone(hit.doc)
    if (hit) cache.delete(did)
    let pending = inFlight.get(did)
    if (!pending) {
      pending = resolveDidWeb(did, { httpGet: options.httpGet, allowHttp: options.allowHttp ?? false })
        .then((doc) => {
          remember(did, doc)
          return doc
        })
        .finally(() => inFlight.delete(did))
      inFlight.set(did, pending)
    }
    return structuredClone(await pending)
  }

  function remember(did: string, doc: DidDocument): void {
    if (cache.size >= maxEntries) {
      const time = now()
      for (const [key, entry] of cache) if (entry.expires <= time) cache.delete(key)
      // Still full: drop the oldest insertion (Map iterates in insertion order).
      const oldest = cache.keys().next()
      if (cache.size >= maxEntries && !oldest.done) cache.delete(oldest.value)
    }
    cache.set(did, { expires: now() + ttl, doc })
  }

  return {
    async resolve(input, resolution = {}) {
      const did = normalizeDid(input)
      const method = didMethod(did)
      if (method === 'key') return result(buildDidKeyDocument(did, { publicKeyFormat: resolution.publicKeyFormat }))
      const local = await options.lookupLocal(did)
      if (local) return result(local)
      if (method === 'web') return result(await didWeb(did))
      throw new ValidationError(
        `DID method "${method}" is not supported: only did:key, did:web and DIDs registered with this service resolve`,
      )
    },
  }
}

function result(didDocument: DidDocument): DidResolutionResult {
  // DID Core §6.2 / §6.3: JSON-LD representation when the document carries an @context.
  const contentType = didDocument['@context'] === undefined ? 'application/did+json' : 'application/did+ld+json'
  return { didDocument, didResolutionMetadata: { contentType }, didDocumentMetadata: {} }
}
