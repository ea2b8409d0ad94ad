import { ed25519Multibase } from '../auth/public-key-text.js'
import type { ServiceVerificationMethod } from '../did/did-resolver.js'
import type { KeyStore } from '../keys/key-store.js'

/** Key-store purpose of an issuer's custodial Ed25519 key (JWT-VC signatures). */
export const ISSUER_ED25519 = 'issuer-ed25519'

/** The issuer's service-managed keys, active and retired, as DID-document verification methods. */
export async function issuerVerificationMethods(keys: KeyStore, did: string): Promise<ServiceVerificationMethod[]> {
  const owned = await keys.list(did, ISSUER_ED25519)
  return owned.map((k) => ({ fragment: k.kid, type: 'Multikey' as const, publicKeyMultibase: ed25519Multibase(k.publicKey) }))
}
