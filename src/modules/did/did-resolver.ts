/**
 * DID resolution (W3C DID Resolution: document plus resolution and document metadata) through a
 * registry of method resolvers (methods/): the service's own hosted DIDs first, then DIDs
 * registered here, then did:key, did:jwk and did:web by method. A new method is one resolver
 * in methods/ and one line in `createDidResolver`.
 */
import type { HttpGet } from '../../adapters/http-out/guarded-fetch.js'
import { ValidationError } from '../../errors.js'
import type { DidDocument } from './did-document.js'
import { didMethod, normalizeDid } from './did-normalize.js'
import { didJwkResolver } from './methods/did-jwk-method.js'
import { didKeyResolver } from './methods/did-key-method.js'
import type { DidMethodResolver, ResolutionOptions } from './methods/did-method.js'
import { didWebResolver } from './methods/did-web-method.js'

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
  /** did:webs this service hosts (issuers' signing DIDs, its own), answered without a fetch. */
  hosted?: (did: string, fresh: boolean) => Promise<DidDocument | undefined>
  legacyAssertionMethod?: (kid: string) => Promise<Record<string, unknown> | undefined>
  now?: () => number
  /** did:web documents are cached this long (default 60 s): a login must not cost a fetch. */
  cacheTtlMs?: number
  cacheMaxEntries?: number
}

export function createDidResolver(options: DidResolverOptions): DidResolver {
  const now = options.now ?? Date.now
  const maxEntries = options.cacheMaxEntries ?? 1000
  const first: DidMethodResolver[] = [
    { name: 'hosted here', methods: ['web'], resolve: (did, o) => options.hosted?.(did, o.fresh === true) ?? Promise.resolve(undefined) },
    { name: 'registered here', methods: ['*'], resolve: (did) => options.lookupLocal(did) },
  ]
  const byMethod: DidMethodResolver[] = [
    didKeyResolver(maxEntries),
    didJwkResolver(),
    didWebResolver({ httpGet: options.httpGet, allowHttp: options.allowHttp ?? false, now, ttlMs: options.cacheTtlMs ?? 60_000, maxEntries }),
  ]
  const supported = byMethod.flatMap((r) => r.methods.map((m) => `did:${m}`)).join(', ')

  return {
    async resolve(input, resolution = {}) {
      const did = normalizeDid(input)
      const method = didMethod(did)
      // did:key and did:jwk are computed from the DID: nothing local can stand in for them.
      const computed = method === 'key' || method === 'jwk'
      for (const resolver of [...(computed ? [] : first), ...byMethod]) {
        if (!resolver.methods.includes(method) && !resolver.methods.includes('*')) continue
        const doc = await resolver.resolve(did, resolution)
        if (doc) return result(doc)
      }
      throw new ValidationError(`DID method "${method}" is not supported: ${supported} and DIDs registered with this service resolve`)
    },
    legacyAssertionMethod: (kid) => options.legacyAssertionMethod?.(kid) ?? Promise.resolve(undefined),
  }
}

function result(didDocument: DidDocument): DidResolutionResult {
  // DID Core §6.2 / §6.3: JSON-LD representation when the document carries an @context.
  const contentType = didDocument['@context'] === undefined ? 'application/did+json' : 'application/did+ld+json'
  return { didDocument, didResolutionMetadata: { contentType }, didDocumentMetadata: {} }
}
