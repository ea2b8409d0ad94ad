/**
 * The verification methods a DID document authorizes for a relationship (DID Core §5.3) and their
 * Ed25519 keys: `authentication` for the challenge-response login, either relationship for a JWS
 * (jws-keys.ts). Documents may come from the web, so every field is checked at run time and
 * anything unusable is skipped, never trusted.
 */
import { base58btc } from 'multiformats/bases/base58'
import { canonicalPublicKey, decodeMultibaseKey } from '../../crypto/did-key.js'
import type { DidDocument } from './did-document.js'

export function ed25519AuthenticationKeys(doc: DidDocument): Uint8Array[] {
  const methods = Array.isArray(doc.verificationMethod) ? (doc.verificationMethod as unknown[]) : []
  const references = Array.isArray(doc.authentication) ? (doc.authentication as unknown[]) : []
  const keys = new Map<string, Uint8Array>()
  for (const reference of references) {
    const method =
      typeof reference === 'string'
        ? methods.find((m) => isRecord(m) && typeof m.id === 'string' && sameId(m.id, reference, doc.id))
        : reference
    // A reference into another DID's document would need a second resolution: not followed.
    if (!isRecord(method)) continue
    const key = ed25519Key(method)
    if (key) keys.set(Buffer.from(key).toString('hex'), key)
  }
  return [...keys.values()]
}

/**
 * The verification method `kid` (an absolute DID URL) when the document authorizes it for
 * `relationship` (DID Core §5.3: by reference or embedded); undefined otherwise.
 */
export function verificationMethodFor(
  doc: DidDocument,
  kid: string,
  relationship: 'authentication' | 'assertionMethod',
): Record<string, unknown> | undefined {
  const methods = Array.isArray(doc.verificationMethod) ? (doc.verificationMethod as unknown[]) : []
  const references = Array.isArray(doc[relationship]) ? (doc[relationship] as unknown[]) : []
  for (const reference of references) {
    const method =
      typeof reference === 'string'
        ? sameId(reference, kid, doc.id)
          ? methods.find((m) => isRecord(m) && typeof m.id === 'string' && sameId(m.id, kid, doc.id))
          : undefined
        : isRecord(reference) && typeof reference.id === 'string' && sameId(reference.id, kid, doc.id)
          ? reference
          : undefined
    if (isRecord(method)) return method
  }
  return undefined
}

/**
 * Every verification method the document authorizes for `relationship` (DID Core §5.3: by
 * reference or embedded), each once, with its id made absolute (§3.2.2).
 */
export function methodsFor(
  doc: DidDocument,
  relationship: 'authentication' | 'assertionMethod',
): Record<string, unknown>[] {
  const methods = Array.isArray(doc.verificationMethod) ? (doc.verificationMethod as unknown[]) : []
  const references = Array.isArray(doc[relationship]) ? (doc[relationship] as unknown[]) : []
  const found = new Map<string, Record<string, unknown>>()
  for (const reference of references) {
    const method =
      typeof reference === 'string'
        ? methods.find((m) => isRecord(m) && typeof m.id === 'string' && sameId(m.id, reference, doc.id))
        : reference
    if (!isRecord(method) || typeof method.id !== 'string') continue
    const id = method.id.startsWith('#') ? `${doc.id}${method.id}` : method.id
    if (!found.has(id)) found.set(id, { ...method, id })
  }
  return [...found.values()]
}

/** DID Core §3.2.2: a relative DID URL (`#key-1`) is resolved against the document's id. */
function sameId(methodId: string, reference: string, did: string): boolean {
  const absolute = (value: string): string => (value.startsWith('#') ? `${did}${value}` : value)
  return absolute(methodId) === absolute(reference)
}

/** The Ed25519 public key of one verification method, or undefined when it is not a usable Ed25519 key. */
export function ed25519Key(method: Record<string, unknown>): Uint8Array | undefined {
  const { type, publicKeyMultibase, publicKeyBase58, publicKeyJwk } = method
  // Multikey / Ed25519VerificationKey2020: the multicodec header names the key type.
  if (typeof publicKeyMultibase === 'string') return multibaseKey(publicKeyMultibase, 'ed25519')
  // Ed25519VerificationKey2018 carries bare bytes, so only its type says what they are.
  if (type === 'Ed25519VerificationKey2018' && typeof publicKeyBase58 === 'string') {
    return memoized(`b58:${publicKeyBase58}`, () =>
      canonicalPublicKey('ed25519', base58btc.baseDecode(publicKeyBase58)),
    )
  }
  // JsonWebKey2020 / JsonWebKey: RFC 8037 §2 OKP key.
  if (
    isRecord(publicKeyJwk) &&
    publicKeyJwk.kty === 'OKP' &&
    publicKeyJwk.crv === 'Ed25519' &&
    typeof publicKeyJwk.x === 'string'
  ) {
    const x = publicKeyJwk.x
    return memoized(`jwk:${x}`, () => canonicalPublicKey('ed25519', Buffer.from(x, 'base64url')))
  }
  return undefined
}

/**
 * The P-256 public key (compressed) of one verification method: a Multikey with multicodec
 * p256-pub, a JWK (RFC 7518 §6.2.1) of curve P-256, or did:key's P256Key2021; undefined otherwise.
 */
export function p256Key(method: Record<string, unknown>): Uint8Array | undefined {
  const { type, publicKeyMultibase, publicKeyBase58, publicKeyJwk } = method
  if (typeof publicKeyMultibase === 'string') return multibaseKey(publicKeyMultibase, 'p256')
  if (
    isRecord(publicKeyJwk) &&
    publicKeyJwk.kty === 'EC' &&
    publicKeyJwk.crv === 'P-256' &&
    typeof publicKeyJwk.x === 'string' &&
    typeof publicKeyJwk.y === 'string'
  ) {
    const { x, y } = publicKeyJwk
    return memoized(`jwk:${x}.${y}`, () =>
      canonicalPublicKey(
        'p256',
        Buffer.concat([Uint8Array.of(4), Buffer.from(x, 'base64url'), Buffer.from(y, 'base64url')]),
      ),
    )
  }
  // The did:key method's own P-256 form (P256Key2021: the compressed point in base58).
  if (type === 'P256Key2021' && typeof publicKeyBase58 === 'string')
    return memoized(`p256b58:${publicKeyBase58}`, () =>
      canonicalPublicKey('p256', base58btc.baseDecode(publicKeyBase58)),
    )
  return undefined
}

/** A multicodec-prefixed multibase key (Multikey) of the given key type, else undefined. */
function multibaseKey(text: string, codec: 'ed25519' | 'p256'): Uint8Array | undefined {
  return memoized(`mb:${codec}:${text}`, () => {
    const decoded = decodeMultibaseKey(text)
    return decoded.codec === codec ? decoded.publicKey : undefined
  })
}

// Decoding validates the curve point: verifications decode the same issuer and
// holder keys again and again. Bounded; a hit returns a copy so no caller alters the next one's.
const KEY_MEMO_MAX = 4096
const keyMemo = new Map<string, Uint8Array | null>()
function memoized(text: string, decode: () => Uint8Array | undefined): Uint8Array | undefined {
  let key = keyMemo.get(text)
  if (key === undefined) {
    try {
      key = decode() ?? null
    } catch {
      // Malformed key material: this method cannot authenticate anyone.
      key = null
    }
    if (keyMemo.size >= KEY_MEMO_MAX) keyMemo.delete(keyMemo.keys().next().value!)
    keyMemo.set(text, key)
  }
  return key === null ? undefined : new Uint8Array(key)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
