import type { KeyObject } from 'node:crypto'
import { ed25519PublicKeyObject, ed25519VerifyAsync } from '../../crypto/ed25519.js'
import { decodeCompactJws, jwsNestingProblem } from '../../crypto/jws.js'
import type { DidResolver } from './did-resolver.js'
import { ed25519KeyFor } from './verification-keys.js'

export interface VerifiedJws {
  header: Record<string, unknown>
  payload: Record<string, unknown>
  /** The DID whose document authorized the key (the part of `kid` before `#`). */
  did: string
  kid: string
}

/** A JWS that does not verify; the message says why in words a holder or verifier can act on. */
export class JwsRejected extends Error {}

/**
 * Verifies a compact JWS signed with EdDSA (RFC 8037) by a key a DID document authorizes:
 * `kid` is a DID URL (`did:…#fragment`), resolved through the same resolver as `GET /api/did/:did`
 * (did:key computed, did:web fetched, issuers' service-managed keys), and the method must be
 * listed under `relationship` (`authentication` for a holder's VP, `assertionMethod` for a
 * credential). Only what that public document says is trusted.
 */
export async function verifyDidJws(resolver: DidResolver, jws: string, relationship: 'authentication' | 'assertionMethod'): Promise<VerifiedJws> {
  const decoded = decodeCompactJws(jws)
  if (!decoded) throw new JwsRejected(jwsNestingProblem(jws) ?? 'not a compact JWS')
  const { header, payload } = decoded
  if (header.alg !== 'EdDSA') throw new JwsRejected(`unsupported alg ${JSON.stringify(header.alg)} (EdDSA expected)`)
  const kid = header.kid
  if (typeof kid !== 'string' || !kid.startsWith('did:') || !kid.includes('#')) throw new JwsRejected('header kid must be a DID URL (did:…#key)')
  const did = kid.slice(0, kid.indexOf('#'))
  const keyIn = async (fresh: boolean): Promise<Uint8Array | undefined> => {
    let doc
    try {
      doc = (await resolver.resolve(did, { fresh })).didDocument
    } catch (error) {
      throw new JwsRejected(`the DID ${did} could not be resolved: ${(error as Error).message}`)
    }
    return ed25519KeyFor(doc, kid, relationship)
  }
  // A document served from the resolver's short cache may predate a key made since (a new
  // issuer, a rotation on another instance): a miss is retried once on a fresh resolution.
  const key = (await keyIn(false)) ?? (await keyIn(true))
  if (!key) throw new JwsRejected(`${kid} is not an Ed25519 ${relationship} key of ${did}`)
  const [h, p, s] = jws.split('.') as [string, string, string]
  const ok = await ed25519VerifyAsync(keyObject(key), Buffer.from(`${h}.${p}`, 'ascii'), Buffer.from(s, 'base64url'))
  if (!ok) throw new JwsRejected(`the signature does not verify with ${kid}`)
  return { header, payload, did, kid }
}

// Building a KeyObject costs about as much as the verification itself; the same few issuer and
// holder keys verify again and again.
const KEY_OBJECTS_MAX = 4096
const keyObjects = new Map<string, KeyObject>()
function keyObject(publicKey: Uint8Array): KeyObject {
  const id = Buffer.from(publicKey).toString('base64')
  let found = keyObjects.get(id)
  if (!found) {
    found = ed25519PublicKeyObject(publicKey)
    if (keyObjects.size >= KEY_OBJECTS_MAX) keyObjects.delete(keyObjects.keys().next().value!)
    keyObjects.set(id, found)
  }
  return found
}
