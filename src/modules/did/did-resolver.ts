/**
 * DID resolution (W3C DID Resolution: document plus resolution and document metadata) through the
 * method registry (methods/registered-methods.ts): the service's own hosted DIDs first, then DIDs
 * registered here, then the DID's method's resolver. A self-certifying method's document is
 * computed from the DID, so nothing local stands in for it.
 */
import type { HttpGet } from '../../adapters/http-out/guarded-fetch.js'
import { ValidationError } from '../../errors.js'
import type { DidDocument } from './did-document.js'
import { didMethod, normalizeDid } from './did-normalize.js'
import type { DidMethod, DidMethodDeps, DidMethodResolver, ResolutionOptions } from './methods/did-method.js'
import { didMethods } from './methods/registered-methods.js'

export type { ResolutionOptions } from './methods/did-method.js'

export interface DidResolutionResult {
  didDocument: DidDocument
  didResolutionMetadata: { contentType: string }
  didDocumentMetadata: Record<string, unknown>
}

export interface DidResolver {
  resolve(did: string, options?: ResolutionOptions): Promise<DidResolutionResult>
  /**
   * A verification method of a login DID from before signing identities (`<login DID>#key-…`),
   * kept by the key store and no longer in any document: only so credentials issued then still
   * verify here (docs/decisions.md "Issuer identity"). Undefined for any other id.
   */
  legacyAssertionMethod(kid: string): Promise<Record<string, unknown> | undefined>
}

export interface DidResolverOptions {
  httpGet: HttpGet
  allowHttp?: boolean
  /** DIDs registered with this service, of any method; undefined when unknown. */
  lookupLocal: (did: string) => Promise<DidDocument | undefined>
  /** DIDs this service hosts (issuers' signing DIDs, its own), answered without a fetch; undefined for any other. */
  hosted?: (did: string, fresh: boolean) => Promise<DidDocument | undefined>
  legacyAssertionMethod?: (kid: string) => Promise<Record<string, unknown> | undefined>
  now?: () => number
  /** Fetched documents are cached this long (default 60 s): a login must not cost a fetch. */
  cacheTtlMs?: number
  cacheMaxEntries?: number
}

export function createDidResolver(options: DidResolverOptions): DidResolver {
  const deps: DidMethodDeps = {
    httpGet: options.httpGet,
    allowHttp: options.allowHttp ?? false,
    now: options.now ?? Date.now,
    cacheTtlMs: options.cacheTtlMs ?? 60_000,
    cacheMaxEntries: options.cacheMaxEntries ?? 1000,
  }
  // The service's own hosted DIDs, then DIDs registered here.
  const local: DidMethodResolver[] = [
    { resolve: (did, o) => options.hosted?.(did, o.fresh === true) ?? Promise.resolve(undefined) },
    { resolve: (did) => options.lookupLocal(did) },
  ]
  // Each method's resolver is built on its first DID and keeps its caches for this resolver's life.
  const built = new Map<DidMethod, DidMethodResolver>()
  const resolverOf = (method: DidMethod): DidMethodResolver => {
    let resolver = built.get(method)
    if (!resolver) built.set(method, (resolver = method.resolver(deps)))
    return resolver
  }

  return {
    async resolve(input, resolution = {}) {
      const did = normalizeDid(input)
      const name = didMethod(did)
      const method = didMethods.get(name)
      for (const resolver of [...(method?.selfCertifying ? [] : local), ...(method ? [resolverOf(method)] : [])]) {
        const doc = await resolver.resolve(did, resolution)
        if (doc) return result(doc)
      }
      const supported = didMethods
        .all()
        .map((m) => `did:${m.name}`)
        .join(', ')
      throw new ValidationError(
        `DID method "${name}" is not supported: ${supported} and DIDs registered with this service resolve`,
      )
    },
    legacyAssertionMethod: (kid) => options.legacyAssertionMethod?.(kid) ?? Promise.resolve(undefined),
  }
}

function result(didDocument: DidDocument): DidResolutionResult {
  // DID Core §6.2 / §6.3: JSON-LD representation when the document carries an @context.
  const contentType = didDocument['@context'] === undefined ? 'application/did+json' : 'application/did+ld+json'
  return { didDocument, didResolutionMetadata: { contentType }, didDocumentMetadata: {} }
}
