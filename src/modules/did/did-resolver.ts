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
  /**
   * Read the service keys from the database rather than their short cache: for what must show
   * the latest keys. did:web documents stay cached either way (a fetch per call would let any
   * caller make this service hammer a web server).
   */
  fresh?: boolean
}

export interface ServiceVerificationMethod {
  /** Fragment after `#`. */
  fragment: string
  type: string
  publicKeyMultibase?: string
  /** Further properties of the method (e.g. the label BBS signature params derive from). */
  [property: string]: unknown
}

export interface DidResolver {
  resolve(did: string, options?: ResolutionOptions): Promise<DidResolutionResult>
}

export interface DidResolverOptions {
  httpGet: HttpGet
  allowHttp?: boolean
  /** DIDs registered with this service, of any method; undefined when unknown. */
  lookupLocal: (did: string) => Promise<DidDocument | undefined>
  /**
   * Verification methods this service manages for a DID (custodial issuer keys, DESIGN.md
   * principle 2): added to its document as assertion methods so credentials signed with them
   * verify from this document. Retired keys stay listed: older credentials still verify.
   */
  serviceKeys?: (did: string) => Promise<ServiceVerificationMethod[]>
  now?: () => number
  /** did:web documents are cached this long (default 60 s): a login must not cost a fetch. */
  cacheTtlMs?: number
  /**
   * Service keys are cached this long (default 10 s): verifying a presentation resolves the same
   * issuers again and again. Keys are never deleted (retired ones stay listed), so a cached list
   * can only lack a key made since; verifyDidJws retries such a miss with `fresh`.
   */
  serviceKeysTtlMs?: number
  cacheMaxEntries?: number
}

export function createDidResolver(options: DidResolverOptions): DidResolver {
  const now = options.now ?? Date.now
  const ttl = options.cacheTtlMs ?? 60_000
  const maxEntries = options.cacheMaxEntries ?? 1000
  const cache = new Map<string, { expires: number; doc: DidDocument }>()
  // Concurrent resolutions of one did:web share one fetch.
  const inFlight = new Map<string, Promise<DidDocument>>()
  // did:key documents are a pure function of the DID, but building one validates the curve point
  // and derives the X25519 key: verifying presentations resolves the same holders
  // and issuers again and again. Frozen, so a caller cannot alter what the next one reads.
  const didKeyDocs = new Map<string, DidDocument>()
  const serviceKeysTtl = options.serviceKeysTtlMs ?? 10_000
  const serviceKeyCache = new Map<string, { expires: number; keys: ServiceVerificationMethod[] }>()
  async function serviceKeysOf(did: string, fresh: boolean): Promise<ServiceVerificationMethod[]> {
    if (!options.serviceKeys) return []
    const hit = serviceKeyCache.get(did)
    if (!fresh && hit && hit.expires > now()) return hit.keys
    const keys = await options.serviceKeys(did)
    serviceKeyCache.delete(did)
    if (serviceKeyCache.size >= maxEntries) serviceKeyCache.delete(serviceKeyCache.keys().next().value!)
    serviceKeyCache.set(did, { expires: now() + serviceKeysTtl, keys })
    return keys
  }
  function didKeyDocument(did: string): DidDocument {
    let doc = didKeyDocs.get(did)
    if (!doc) {
      doc = deepFreeze(buildDidKeyDocument(did, {}))
      if (didKeyDocs.size >= maxEntries) didKeyDocs.delete(didKeyDocs.keys().next().value!)
      didKeyDocs.set(did, doc)
    }
    return doc
  }

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
      const fresh = resolution.fresh === true
      const withServiceKeys = async (doc: DidDocument) => addServiceKeys(doc, await serviceKeysOf(did, fresh))
      if (method === 'key') {
        return withServiceKeys(resolution.publicKeyFormat === undefined ? didKeyDocument(did) : buildDidKeyDocument(did, { publicKeyFormat: resolution.publicKeyFormat }))
      }
      const local = await options.lookupLocal(did)
      if (local) return withServiceKeys(local)
      if (method === 'web') return withServiceKeys(await didWeb(did))
      throw new ValidationError(
        `DID method "${method}" is not supported: only did:key, did:web and DIDs registered with this service resolve`,
      )
    },
  }
}

const MULTIKEY_CONTEXT = 'https://w3id.org/security/multikey/v1'

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

function addServiceKeys(doc: DidDocument, keys: ServiceVerificationMethod[]): DidResolutionResult {
  if (keys.length === 0) return result(doc)
  const methods = keys.map(({ fragment, ...rest }) => ({ id: `${doc.id}#${fragment}`, controller: doc.id, ...rest }))
  const context = doc['@context'] === undefined ? undefined : [...new Set([...[doc['@context']].flat(), MULTIKEY_CONTEXT])]
  const augmented: DidDocument = {
    ...doc,
    ...(context ? { '@context': context } : {}),
    verificationMethod: [...((doc.verificationMethod as unknown[] | undefined) ?? []), ...methods],
    assertionMethod: [...((doc.assertionMethod as unknown[] | undefined) ?? []), ...methods.map((m) => m.id)],
  } as DidDocument
  const resolved = result(augmented)
  // Say which methods are the service's, not the DID controller's own.
  resolved.didDocumentMetadata = { serviceManagedVerificationMethods: methods.map((m) => m.id) }
  return resolved
}

function result(didDocument: DidDocument): DidResolutionResult {
  // DID Core §6.2 / §6.3: JSON-LD representation when the document carries an @context.
  const contentType = didDocument['@context'] === undefined ? 'application/did+json' : 'application/did+ld+json'
  return { didDocument, didResolutionMetadata: { contentType }, didDocumentMetadata: {} }
}
