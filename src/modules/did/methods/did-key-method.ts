import { decodeDidKey, encodeDidKey } from '../../../crypto/did-key.js'
import { ValidationError } from '../../../errors.js'
import { buildDidKeyDocument, type DidDocument } from '../did-document.js'
import type { DidMethod } from './did-method.js'

const PREFIX = 'did:key:'

/**
 * did:key (W3C CCG did:key v0.7): the document is computed from the DID, and an Ed25519 did:key
 * signs in with its own key. Building a document validates the curve point and derives the X25519
 * key, and verification resolves the same holders and issuers again and again: documents are
 * memoized, frozen so no caller alters the next one's.
 */
export const didKeyMethod: DidMethod = {
  name: 'key',
  selfCertifying: true,
  resolver(deps) {
    const docs = new Map<string, DidDocument>()
    return {
      async resolve(did, options) {
        if (options.publicKeyFormat !== undefined) return buildDidKeyDocument(did, { publicKeyFormat: options.publicKeyFormat })
        let doc = docs.get(did)
        if (!doc) {
          doc = deepFreeze(buildDidKeyDocument(did, {}))
          if (docs.size >= deps.cacheMaxEntries) docs.delete(docs.keys().next().value!)
          docs.set(did, doc)
        }
        return doc
      },
    }
  },
  signIn: {
    origin: 'did-key',
    keys(did) {
      const decoded = decodeDidKey(did)
      if (decoded.codec !== 'ed25519') throw new ValidationError(`did:key with a ${decoded.codec} key cannot sign in: Ed25519 keys only`)
      return [decoded.publicKey]
    },
    registersOwnKey(did, publicKey) {
      if (encodeDidKey('ed25519', publicKey) !== did) throw new ValidationError('public_key is not the key of this did:key')
    },
  },
}

/** The did:key of an Ed25519 public key: the DID, its `z6Mk…` multibase value and its document. */
export function ed25519DidKey(publicKey: Uint8Array): { did: string; publicKeyMultibase: string; document: DidDocument } {
  const did = encodeDidKey('ed25519', publicKey)
  return { did, publicKeyMultibase: did.slice(PREFIX.length), document: buildDidKeyDocument(did) }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}
