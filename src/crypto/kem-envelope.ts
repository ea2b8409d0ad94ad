import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js'

/**
 * Encryption of content for one recipient (DESIGN.md principle 4, what `kyber_encrypted`
 * means): ML-KEM-768 (FIPS 203) encapsulates a fresh shared secret to the recipient's public
 * key, HKDF-SHA256 turns it into an AES-256-GCM key, and the AEAD seals the content with the
 * caller's associated data (e.g. the credential id) so an envelope cannot be moved to another
 * record. AES-GCM from node:crypto is native (~20x pure JS). The encapsulation is pluggable: the
 * worker pool uses liboqs compiled to WebAssembly (ml-kem-wasm.ts, ~3x faster than pure JS).
 */
export interface KemKeyPair {
  publicKey: Uint8Array
  secretKey: Uint8Array
}

export interface KemEnvelope {
  alg: 'ML-KEM-768+HKDF-SHA256+A256GCM'
  /** base64url of each part */
  kem_ciphertext: string
  iv: string
  ciphertext: string
  tag: string
}

const ALG = 'ML-KEM-768+HKDF-SHA256+A256GCM' as const
const INFO = Buffer.from('kem-envelope/v1 A256GCM')

export function generateKemKeyPair(seed?: Uint8Array): KemKeyPair {
  const { publicKey, secretKey } = ml_kem768.keygen(seed)
  return { publicKey, secretKey }
}

/** FIPS 203 ML-KEM-768 Encaps: any conforming implementation (the envelope cannot tell them apart). */
export type Encapsulate = (publicKey: Uint8Array) => { cipherText: Uint8Array; sharedSecret: Uint8Array }

/** Pure JS (@noble/post-quantum): the default, and the one that checks keys at registration. */
export const nobleEncapsulate: Encapsulate = (publicKey) => ml_kem768.encapsulate(publicKey)

/**
 * Throws unless the bytes are a valid ML-KEM-768 encapsulation key: the length and the
 * FIPS 203 §7.2 modulus check (every coefficient below q), which noble's Encaps performs.
 */
export function assertKemPublicKey(publicKey: Uint8Array): void {
  nobleEncapsulate(publicKey)
}

export function sealToRecipient(recipientPublicKey: Uint8Array, plaintext: Uint8Array, associatedData: string, encapsulate: Encapsulate = nobleEncapsulate): KemEnvelope {
  const { cipherText, sharedSecret } = encapsulate(recipientPublicKey)
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', aeadKey(sharedSecret, cipherText), iv)
  cipher.setAAD(Buffer.from(associatedData))
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
  return {
    alg: ALG,
    kem_ciphertext: Buffer.from(cipherText).toString('base64url'),
    iv: iv.toString('base64url'),
    ciphertext: body.toString('base64url'),
    tag: cipher.getAuthTag().toString('base64url'),
  }
}

/** Throws when the envelope was altered, sealed for another key, or bound to other data. */
export function openFromSender(secretKey: Uint8Array, envelope: KemEnvelope, associatedData: string): Uint8Array {
  if (envelope.alg !== ALG) throw new Error(`unsupported envelope algorithm ${String(envelope.alg)}`)
  const kemCiphertext = Buffer.from(envelope.kem_ciphertext, 'base64url')
  // ML-KEM decapsulation never fails: a wrong key yields a different secret, so the AEAD tag
  // check below is what rejects it (FIPS 203 implicit rejection).
  const sharedSecret = ml_kem768.decapsulate(kemCiphertext, secretKey)
  const decipher = createDecipheriv('aes-256-gcm', aeadKey(sharedSecret, kemCiphertext), Buffer.from(envelope.iv, 'base64url'))
  decipher.setAAD(Buffer.from(associatedData))
  decipher.setAuthTag(Buffer.from(envelope.tag, 'base64url'))
  return new Uint8Array(Buffer.concat([decipher.update(Buffer.from(envelope.ciphertext, 'base64url')), decipher.final()]))
}

// The KEM ciphertext is the HKDF salt, binding the derived key to this encapsulation.
function aeadKey(sharedSecret: Uint8Array, kemCiphertext: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', sharedSecret, kemCiphertext, INFO, 32))
}
