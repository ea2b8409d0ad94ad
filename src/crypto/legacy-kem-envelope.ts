import { createDecipheriv, decapsulate, hkdfSync, type KeyObject } from 'node:crypto'

/**
 * Reader of the v1 envelope, which the service wrote before HPKE: ML-KEM-768 (FIPS 203), then
 * HKDF-SHA256 (RFC 5869, the KEM ciphertext as salt) to an AES-256-GCM key. Kept only so material
 * sealed then still opens; nothing is sealed this way any more. It composes node:crypto
 * primitives in the order the old writer did, and follows no standard beyond them.
 */
export const ENVELOPE_V1_ALG = 'ML-KEM-768+HKDF-SHA256+A256GCM'

export interface EnvelopeV1 {
  alg: typeof ENVELOPE_V1_ALG
  /** base64url of each part */
  kem_ciphertext: string
  iv: string
  ciphertext: string
  tag: string
}

const INFO = Buffer.from('kem-envelope/v1 A256GCM')

/** Throws when the envelope was altered, sealed for another key, or bound to another record id. */
export function openEnvelopeV1(privateKey: KeyObject, envelope: EnvelopeV1, associatedData: string): Uint8Array {
  const kemCiphertext = Buffer.from(envelope.kem_ciphertext, 'base64url')
  // A wrong key yields another secret (FIPS 203 implicit rejection): the GCM tag check rejects it.
  const sharedSecret = decapsulate(privateKey, kemCiphertext)
  const key = Buffer.from(hkdfSync('sha256', sharedSecret, kemCiphertext, INFO, 32))
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64url'), { authTagLength: 16 })
  decipher.setAAD(Buffer.from(associatedData))
  decipher.setAuthTag(Buffer.from(envelope.tag, 'base64url'))
  return new Uint8Array(
    Buffer.concat([decipher.update(Buffer.from(envelope.ciphertext, 'base64url')), decipher.final()]),
  )
}
