/**
 * DID documents: the did:key document expansion (W3C CCG did:key spec, "Document Creation
 * Algorithm", matching its test vectors) and the document of DIDs registered with this service.
 */
import { base58btc } from 'multiformats/bases/base58'
import {
  canonicalPublicKey,
  decodeDidKey,
  ed25519ToX25519,
  publicKeyToJwk,
  publicKeyToMultibase,
  type KeyCodec,
} from '../../crypto/did-key.js'
import { ValidationError } from '../../errors.js'

export interface VerificationMethod {
  id: string
  type: string
  controller: string
  publicKeyBase58?: string
  publicKeyMultibase?: string
  publicKeyJwk?: Record<string, unknown>
  [property: string]: unknown
}

/** A relationship entry is a reference to a verification method or an embedded one (DID Core §5.3). */
export type VerificationReference = string | VerificationMethod

/** DID Core §5 data model, loosely typed: documents from the web are checked where used. */
export interface DidDocument {
  '@context'?: string | (string | Record<string, unknown>)[]
  id: string
  controller?: string | string[]
  alsoKnownAs?: string[]
  verificationMethod?: VerificationMethod[]
  authentication?: VerificationReference[]
  assertionMethod?: VerificationReference[]
  keyAgreement?: VerificationReference[]
  capabilityInvocation?: VerificationReference[]
  capabilityDelegation?: VerificationReference[]
  service?: Record<string, unknown>[]
  [property: string]: unknown
}

const DID_V1 = 'https://www.w3.org/ns/did/v1'
const MULTIKEY_V1 = 'https://w3id.org/security/multikey/v1'
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

const SIGNING_RELATIONSHIPS = ['assertionMethod', 'authentication', 'capabilityInvocation', 'capabilityDelegation'] as const

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

/**
 * The document of a DID registered with this service, in the current Multikey form
 * (W3C Controlled Identifiers v1.0 §2.2.2). The key id defaults to the key's own multibase,
 * so it is stable and derivable without storage.
 */
export function buildRegisteredDidDocument(
  did: string,
  ed25519PublicKey: Uint8Array,
  options: { keyId?: string } = {},
): DidDocument {
  const multibase = publicKeyToMultibase('ed25519', canonicalPublicKey('ed25519', ed25519PublicKey))
  const id = `${did}#${options.keyId ?? multibase}`
  return {
    '@context': [DID_V1, MULTIKEY_V1],
    id: did,
    verificationMethod: [{ id, type: 'Multikey', controller: did, publicKeyMultibase: multibase }],
    authentication: [id],
    assertionMethod: [id],
  }
}
