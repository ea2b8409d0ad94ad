import { bbsVerificationMethodFields } from '../../crypto/bbs/bbs-key-text.js'
import { publicKeyToMultibase } from '../../crypto/did-key.js'
import { p256PublicJwk } from '../../crypto/p256.js'
import type { DidDocument, VerificationMethod } from '../did/did-document.js'
import { IETF_BBS, type PublishedKey } from './signing-identities.js'

const DID_V1 = 'https://www.w3.org/ns/did/v1'
const MULTIKEY_V1 = 'https://w3id.org/security/multikey/v1'
const JWS_2020 = 'https://w3id.org/security/suites/jws-2020/v1'

/**
 * The document of a did:web this service hosts (did:web spec §3.2; DID Core §5): its Ed25519 keys
 * as Multikeys (Controlled Identifiers §2.2.2, what Data Integrity verifiers read), its P-256 keys
 * as JsonWebKey2020 (the JWK form OpenID4VC wallets read), its Dock BBS keys as Multikeys with their
 * params label, its IETF BBS keys (bbs-2023) as plain Multikeys (bls12_381-g2-pub, what
 * @digitalbazaar/bls12-381-multikey reads). All are assertion methods; the JWS keys also authenticate (the DID Configuration).
 * `alsoKnownAs` and `controller` name the login DID the issuer manages it from.
 */
export function hostedDidDocument(did: string, keys: PublishedKey[], aliases: string[] = []): DidDocument {
  const methods = keys.map((k) => verificationMethod(did, k))
  const jws = keys.filter((k) => k.keyType === 'Ed25519' || k.keyType === 'P-256').map((k) => k.id)
  return {
    '@context': [DID_V1, MULTIKEY_V1, JWS_2020],
    id: did,
    ...(aliases.length ? { alsoKnownAs: aliases, controller: [did, ...aliases] } : {}),
    verificationMethod: methods,
    authentication: jws,
    assertionMethod: methods.map((m) => m.id),
  }
}

function verificationMethod(did: string, key: PublishedKey): VerificationMethod {
  const base = { id: key.id, controller: did }
  if (key.keyType === 'Ed25519')
    return { ...base, type: 'Multikey', publicKeyMultibase: publicKeyToMultibase('ed25519', key.publicKey) }
  if (key.keyType === IETF_BBS)
    return { ...base, type: 'Multikey', publicKeyMultibase: publicKeyToMultibase('bls12381g2', key.publicKey) }
  if (key.keyType === 'P-256') return { ...base, type: 'JsonWebKey2020', publicKeyJwk: p256PublicJwk(key.publicKey) }
  return { ...base, ...bbsVerificationMethodFields(key.publicKey, key.paramsLabel!) }
}
