import { base58btc } from 'multiformats/bases/base58'
import {
  decodeDidKey,
  ed25519ToX25519,
  encodeDidKey,
  publicKeyToJwk,
  publicKeyToMultibase,
  type KeyCodec,
} from '../../../crypto/did-key.js'
import { ValidationError } from '../../../errors.js'
import { DID_V1, MULTIKEY_V1, type DidDocument, type VerificationMethod } from '../did-document.js'
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
        if (options.publicKeyFormat !== undefined)
          return buildDidKeyDocument(did, { publicKeyFormat: options.publicKeyFormat })
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
      if (decoded.codec !== 'ed25519')
        throw new ValidationError(`did:key with a ${decoded.codec} key cannot sign in: Ed25519 keys only`)
      return [decoded.publicKey]
    },
    registersOwnKey(did, publicKey) {
      if (encodeDidKey('ed25519', publicKey) !== did)
        throw new ValidationError('public_key is not the key of this did:key')
    },
  },
}

/** The did:key of an Ed25519 public key: the DID, its `z6Mk…` multibase value and its document. */
export function ed25519DidKey(publicKey: Uint8Array): {
  did: string
  publicKeyMultibase: string
  document: DidDocument
} {
  const did = encodeDidKey('ed25519', publicKey)
  return { did, publicKeyMultibase: did.slice(PREFIX.length), document: buildDidKeyDocument(did) }
}

// The did:key document expansion (W3C CCG did:key spec, "Document Creation Algorithm", matching its test vectors).
const JWS_2020 = 'https://w3id.org/security/suites/jws-2020/v1'

/** Per key type, the suite-specific type with publicKeyBase58 used by the did:key vectors. */
const LEGACY: Partial<Record<KeyCodec, { type: string; context: string }>> = {
  ed25519: { type: 'Ed25519VerificationKey2018', context: 'https://w3id.org/security/suites/ed25519-2018/v1' },
  x25519: { type: 'X25519KeyAgreementKey2019', context: 'https://w3id.org/security/suites/x25519-2019/v1' },
  secp256k1: {
    type: 'EcdsaSecp256k1VerificationKey2019',
    context: 'https://w3id.org/security/suites/secp256k1-2019/v1',
  },
  p256: { type: 'P256Key2021', context: 'https://w3id.org/security/suites/multikey-2021/v1' },
  bls12381g2: { type: 'Bls12381G2Key2020', context: 'https://w3id.org/security/suites/bls12381-2020/v1' },
}

const SIGNING_RELATIONSHIPS = [
  'assertionMethod',
  'authentication',
  'capabilityInvocation',
  'capabilityDelegation',
] as const

export interface DidKeyDocumentOptions {
  /**
   * The did:key `publicKeyFormat` resolution option: `JsonWebKey2020`, `Multikey`, or the
   * key type's own suite (e.g. `Ed25519VerificationKey2018`). Default: the suite type where
   * the key type has one, else `JsonWebKey2020` (P-384, P-521, RSA).
   */
  publicKeyFormat?: string
  /** did:key `enableEncryptionKeyDerivation`: add the X25519 key of an Ed25519 key. Default true. */
  enableEncryptionKeyDerivation?: boolean
}

type Format = 'legacy' | 'JsonWebKey2020' | 'Multikey'

export function buildDidKeyDocument(did: string, options: DidKeyDocumentOptions = {}): DidDocument {
  const { codec, publicKey, multibase } = decodeDidKey(did)
  const format = chooseFormat(codec, options.publicKeyFormat)
  const main = verificationMethod(did, codec, publicKey, multibase, format)
  const contexts = [DID_V1, contextOf(codec, format)]
  const methods = [main]
  const doc: DidDocument = { '@context': contexts, id: did, verificationMethod: methods }

  if (codec === 'x25519') {
    doc.keyAgreement = [main.id]
    return doc
  }
  for (const relationship of SIGNING_RELATIONSHIPS) doc[relationship] = [main.id]

  if (codec === 'ed25519') {
    if (options.enableEncryptionKeyDerivation ?? true) {
      const x25519 = ed25519ToX25519(publicKey)
      const derived = verificationMethod(did, 'x25519', x25519, publicKeyToMultibase('x25519', x25519), format)
      methods.push(derived)
      const context = contextOf('x25519', format)
      if (!contexts.includes(context)) contexts.push(context)
      doc.keyAgreement = [derived.id]
    }
  } else if (codec !== 'bls12381g2') {
    // ECDH-capable key types use the same key for key agreement, as in the vectors.
    doc.keyAgreement = [main.id]
  }
  return doc
}

function chooseFormat(codec: KeyCodec, requested: string | undefined): Format {
  const legacy = LEGACY[codec]
  if (requested === undefined) return legacy ? 'legacy' : 'JsonWebKey2020'
  if (requested === 'JsonWebKey2020' || requested === 'Multikey') return requested
  if (legacy && requested === legacy.type) return 'legacy'
  // did:key spec error `unsupportedPublicKeyType`.
  throw new ValidationError(`publicKeyFormat ${requested} is not supported for ${codec} did:key keys`)
}

function contextOf(codec: KeyCodec, format: Format): string {
  if (format === 'JsonWebKey2020') return JWS_2020
  if (format === 'Multikey') return MULTIKEY_V1
  return (LEGACY[codec] as { context: string }).context
}

function verificationMethod(
  did: string,
  codec: KeyCodec,
  publicKey: Uint8Array,
  multibase: string,
  format: Format,
): VerificationMethod {
  const base = { id: `${did}#${multibase}`, controller: did }
  if (format === 'JsonWebKey2020') {
    return { ...base, type: 'JsonWebKey2020', publicKeyJwk: publicKeyToJwk(codec, publicKey) }
  }
  if (format === 'Multikey') return { ...base, type: 'Multikey', publicKeyMultibase: multibase }
  const type = (LEGACY[codec] as { type: string }).type
  return { ...base, type, publicKeyBase58: base58btc.baseEncode(publicKey) }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}
