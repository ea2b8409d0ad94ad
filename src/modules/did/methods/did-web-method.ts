import type { DidDocument } from '../did-document.js'
import { parseDidWeb, resolveDidWeb } from '../did-web.js'
import { ed25519AuthenticationKeys } from '../verification-keys.js'
import type { DidMethod } from './did-method.js'

/**
 * did:web: its id names one URL (did-web.ts), whose document is fetched from its host and cached
 * for `cacheTtlMs` (a login must not cost a fetch); concurrent resolutions of one DID share one
 * fetch, and copies leave the cache, so no caller alters the next one's document. It signs in
 * with the Ed25519 keys its document lists under `authentication`.
 */
export const didWebMethod: DidMethod = {
  name: 'web',
  selfCertifying: false,
  checkSyntax: (did) => void parseDidWeb(did),
  resolver(deps) {
    const cache = new Map<string, { expires: number; doc: DidDocument }>()
    const inFlight = new Map<string, Promise<DidDocument>>()

    function remember(did: string, doc: DidDocument): void {
      if (cache.size >= deps.cacheMaxEntries) {
        const time = deps.now()
        for (const [key, entry] of cache) if (entry.expires <= time) cache.delete(key)
        // Still full: drop the oldest insertion (Map iterates in insertion order).
        const oldest = cache.keys().next()
        if (cache.size >= deps.cacheMaxEntries && !oldest.done) cache.delete(oldest.value)
      }
      cache.set(did, { expires: deps.now() + deps.cacheTtlMs, doc })
    }

    return {
      async resolve(did, resolution) {
        const hit = cache.get(did)
        if (hit && hit.expires > deps.now() && !resolution.refetch) return structuredClone(hit.doc)
        if (hit) cache.delete(did)
        let pending = inFlight.get(did)
        if (!pending) {
          pending = resolveDidWeb(did, { httpGet: deps.httpGet, allowHttp: deps.allowHttp })
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
  },
  signIn: {
    origin: 'did-web',
    keys: async (_did, document) => ed25519AuthenticationKeys(await document()),
  },
  registrationRefusal: 'did:web resolves through its own domain',
}
