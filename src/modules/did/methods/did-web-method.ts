import type { HttpGet } from '../../../adapters/http-out/guarded-fetch.js'
import type { DidDocument } from '../did-document.js'
import { resolveDidWeb } from '../did-web.js'
import type { DidMethodResolver } from './did-method.js'

/**
 * did:web fetched from its host (did-web.ts), cached for `ttlMs` (a login must not cost a fetch);
 * concurrent resolutions of one DID share one fetch. Copies leave the cache, so no caller alters
 * the next one's document.
 */
export function didWebResolver(options: { httpGet: HttpGet; allowHttp: boolean; now: () => number; ttlMs: number; maxEntries: number }): DidMethodResolver {
  const cache = new Map<string, { expires: number; doc: DidDocument }>()
  const inFlight = new Map<string, Promise<DidDocument>>()

  function remember(did: string, doc: DidDocument): void {
    if (cache.size >= options.maxEntries) {
      const time = options.now()
      for (const [key, entry] of cache) if (entry.expires <= time) cache.delete(key)
      // Still full: drop the oldest insertion (Map iterates in insertion order).
      const oldest = cache.keys().next()
      if (cache.size >= options.maxEntries && !oldest.done) cache.delete(oldest.value)
    }
    cache.set(did, { expires: options.now() + options.ttlMs, doc })
  }

  return {
    name: 'did:web',
    methods: ['web'],
    async resolve(did, resolution) {
      const hit = cache.get(did)
      if (hit && hit.expires > options.now() && !resolution.refetch) return structuredClone(hit.doc)
      if (hit) cache.delete(did)
      let pending = inFlight.get(did)
      if (!pending) {
        pending = resolveDidWeb(did, { httpGet: options.httpGet, allowHttp: options.allowHttp })
          .then((doc) => {
            remember(did, doc)
            return doc
          })
          .finally(() => inFlight.delete(did))
        inFlight.set(did, pending)
      }
      return structuredClone(await pending)
    },
  }
}
