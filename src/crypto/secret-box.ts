import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/**
 * AES-256-GCM sealing of secrets at rest (service and issuer private keys) under a key derived
 * from the master key. Layout: version(1) | iv(12) | tag(16) | ciphertext. The associated data
 * binds a sealed key to its row (kid, owner, purpose) so rows cannot be swapped.
 */
const VERSION = 1

export class SecretBox {
  private readonly key: Buffer

  constructor(masterKey: Uint8Array, purpose: string) {
    if (masterKey.length !== 32) throw new Error('master key must be 32 bytes')
    this.key = Buffer.from(hkdfSync('sha256', masterKey, new Uint8Array(0), `secret-box:${purpose}`, 32))
  }

  seal(plaintext: Uint8Array, associatedData: string): Uint8Array {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    cipher.setAAD(Buffer.from(associatedData))
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
    return new Uint8Array(Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), body]))
  }

  open(sealed: Uint8Array, associatedData: string): Uint8Array {
    const buf = Buffer.from(sealed)
    if (buf[0] !== VERSION || buf.length < 29) throw new Error('sealed secret has an unknown layout')
    const decipher = createDecipheriv('aes-256-gcm', this.key, buf.subarray(1, 13))
    decipher.setAuthTag(buf.subarray(13, 29))
    decipher.setAAD(Buffer.from(associatedData))
    return new Uint8Array(Buffer.concat([decipher.update(buf.subarray(29)), decipher.final()]))
  }
}

/** Derives an independent subkey (HKDF-SHA256) for MACs and similar uses of the master key. */
export function deriveKey(masterKey: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, new Uint8Array(0), info, 32))
}
