import type { KeyObject } from 'node:crypto'
import { ed25519PublicKeyObject } from '../../crypto/ed25519.js'
import { jwsAlgorithmFor, type JwsAlgorithm } from '../../crypto/jws.js'
import { p256PublicKeyObject } from '../../crypto/p256.js'
import type { DidDocument } from './did-document.js'
import { ed25519Key, methodsFor, p256Key, verificationMethodFor } from './verification-keys.js'

/** The key types a JWS can be verified with, as error messages name them. */
export const JWS_KEY_TYPES = 'Ed25519 or P-256'

/** A verification method as jose uses it: the public key and the one `alg` it verifies. */
export interface JwsKey {
  key: KeyObject
  alg: JwsAlgorithm
}

/**
 * The jose key of the method `kid` when the document authorizes it for `relationship`, or
 * undefined when it does not, or when its key is of a type no JWS algorithm here verifies.
 */
export function jwsKeyFor(
  doc: DidDocument,
  kid: string,
  relationship: 'authentication' | 'assertionMethod',
): JwsKey | undefined {
  const method = verificationMethodFor(doc, kid, relationship)
  return method && jwsKeyOfMethod(method)
}

/**
 * The keys the document authorizes for `relationship` that verify `alg`, each with its method's
 * absolute id: the candidates for a JWS whose header names no `kid`.
 */
export function jwsKeysFor(
  doc: DidDocument,
  relationship: 'authentication' | 'assertionMethod',
  alg: string,
): Array<JwsKey & { id: string }> {
  return methodsFor(doc, relationship).flatMap((method) => {
    const key = jwsKeyOfMethod(method)
    return key && key.alg === alg ? [{ ...key, id: method.id as string }] : []
  })
}

/** The jose key of one verification method: Ed25519 (EdDSA) or P-256 (ES256). */
export function jwsKeyOfMethod(method: Record<string, unknown>): JwsKey | undefined {
  const ed = ed25519Key(method)
  const raw = ed ?? p256Key(method)
  if (!raw) return undefined
  const key = keyObject(raw, ed ? 'ed25519' : 'p256')
  const alg = jwsAlgorithmFor(key)
  return alg && { key, alg }
}

// The same few issuer and holder keys verify again and again: importing one costs about as much
// as the check, and jose converts each KeyObject to a CryptoKey once (cached per object).
const KEY_OBJECTS_MAX = 4096
const keyObjects = new Map<string, KeyObject>()
function keyObject(publicKey: Uint8Array, type: 'ed25519' | 'p256'): KeyObject {
  const id = `${type}:${Buffer.from(publicKey).toString('base64')}`
  let found = keyObjects.get(id)
  if (!found) {
    found = type === 'ed25519' ? ed25519PublicKeyObject(publicKey) : p256PublicKeyObject(publicKey)
    if (keyObjects.size >= KEY_OBJECTS_MAX) keyObjects.delete(keyObjects.keys().next().value!)
    keyObjects.set(id, found)
  }
  return found
}
