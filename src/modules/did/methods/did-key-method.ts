import { buildDidKeyDocument, type DidDocument } from '../did-document.js'
import type { DidMethodResolver } from './did-method.js'

/**
 * did:key (W3C CCG did:key v0.7): the document is computed from the DID. Building one validates
 * the curve point and derives the X25519 key, and verification resolves the same holders and
 * issuers again and again: documents are memoized, frozen so no caller alters the next one's.
 */
export function didKeyResolver(maxEntries = 1000): DidMethodResolver {
  const docs = new Map<string, DidDocument>()
  return {
    name: 'did:key',
    methods: ['key'],
    async resolve(did, options) {
      if (options.publicKeyFormat !== undefined) return buildDidKeyDocument(did, { publicKeyFormat: options.publicKeyFormat })
      let doc = docs.get(did)
      if (!doc) {
        doc = deepFreeze(buildDidKeyDocument(did, {}))
        if (docs.size >= maxEntries) docs.delete(docs.keys().next().value!)
        docs.set(did, doc)
      }
      return doc
    },
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}
