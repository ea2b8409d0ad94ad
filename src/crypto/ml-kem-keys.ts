import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto'

/**
 * ML-KEM-768 key material (FIPS 203) through node:crypto (OpenSSL 3.5). The private key is kept
 * as the 64-byte seed d‖z, the form draft-ietf-hpke-pq serializes; keys made before HPKE were
 * stored expanded (the 2400-byte FIPS 203 decapsulation key), which still import.
 */
export const ML_KEM_768_PUBLIC_KEY_BYTES = 1184
export const ML_KEM_768_SEED_BYTES = 64
export const ML_KEM_768_EXPANDED_KEY_BYTES = 2400

export interface MlKemKeyPair {
  /** The encapsulation key, 1184 bytes. */
  publicKey: Uint8Array
  /** The 64-byte seed. */
  privateKey: Uint8Array
}

export function generateMlKem768KeyPair(): MlKemKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ml-kem-768')
  return {
    publicKey: new Uint8Array(publicKey.export({ format: 'raw-public' })),
    privateKey: new Uint8Array(privateKey.export({ format: 'raw-seed' })),
  }
}

/** Throws unless the bytes are an ML-KEM-768 encapsulation key passing the FIPS 203 §7.2 modulus check (OpenSSL runs it on import). */
export function assertMlKem768PublicKey(publicKey: Uint8Array): void {
  createPublicKey({ key: Buffer.from(publicKey), format: 'raw-public', asymmetricKeyType: 'ml-kem-768' })
}

// PKCS#8 PrivateKeyInfo for id-alg-ml-kem-768 (2.16.840.1.101.3.4.4.2) whose ML-KEM-PrivateKey is
// the `expandedKey` choice (draft-ietf-lamps-kyber-certificates): node:crypto has no raw import of
// an expanded key, only this encoding. The header is fixed because the key length is.
const EXPANDED_KEY_PKCS8_HEADER = Buffer.from('30820978020100300b06096086480165030404020482096404820960', 'hex')

/** The decapsulation key as node:crypto holds it, from the seed or (keys made before HPKE) the expanded key. */
export function mlKem768PrivateKey(privateKey: Uint8Array): KeyObject {
  if (privateKey.length === ML_KEM_768_SEED_BYTES) {
    return createPrivateKey({ key: Buffer.from(privateKey), format: 'raw-seed', asymmetricKeyType: 'ml-kem-768' })
  }
  if (privateKey.length === ML_KEM_768_EXPANDED_KEY_BYTES) {
    return createPrivateKey({
      key: Buffer.concat([EXPANDED_KEY_PKCS8_HEADER, privateKey]),
      format: 'der',
      type: 'pkcs8',
    })
  }
  throw new RangeError(
    `an ML-KEM-768 private key is a ${ML_KEM_768_SEED_BYTES}-byte seed or a ${ML_KEM_768_EXPANDED_KEY_BYTES}-byte expanded key, not ${privateKey.length} bytes`,
  )
}
