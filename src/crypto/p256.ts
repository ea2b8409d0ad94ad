import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { p256 } from '@noble/curves/nist.js'

/**
 * P-256 (NIST SP 800-186, ES256 per RFC 7518 §3.4) keys on node:crypto, from and to the raw forms
 * the key store and DID documents hold: the 32-byte scalar and the 33-byte compressed point
 * (SEC 1 §2.3.3, as did:key encodes it). noble only converts between point encodings.
 */
export interface P256KeyPair {
  /** Compressed SEC 1 point. */
  publicKey: Uint8Array
  privateKey: Uint8Array
}

export function generateP256(): P256KeyPair {
  return p256KeyPairOf(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey)
}

/** The raw forms of a node:crypto P-256 private key (one imported from PKCS#8, say). */
export function p256KeyPairOf(privateKey: KeyObject): P256KeyPair {
  const jwk = privateKey.export({ format: 'jwk' })
  const point = Buffer.concat([Uint8Array.of(4), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')])
  return { privateKey: Buffer.from(jwk.d!, 'base64url'), publicKey: p256.Point.fromBytes(point).toBytes(true) }
}

/** The RFC 7517 JWK of a public key given compressed or uncompressed. */
export function p256PublicJwk(publicKey: Uint8Array): { kty: 'EC'; crv: 'P-256'; x: string; y: string } {
  const point = p256.Point.fromBytes(publicKey).toBytes(false)
  return {
    kty: 'EC',
    crv: 'P-256',
    x: Buffer.from(point.subarray(1, 33)).toString('base64url'),
    y: Buffer.from(point.subarray(33)).toString('base64url'),
  }
}

export function p256PublicKeyObject(publicKey: Uint8Array): KeyObject {
  return createPublicKey({ key: p256PublicJwk(publicKey), format: 'jwk' })
}

export function p256PrivateKeyObject(privateKey: Uint8Array, publicKey: Uint8Array): KeyObject {
  return createPrivateKey({
    key: { ...p256PublicJwk(publicKey), d: Buffer.from(privateKey).toString('base64url') },
    format: 'jwk',
  })
}

/** Whether a JWK's x and y are a point of P-256 (SEC 1 §3.2.2.1, checked by noble): node:crypto imports any coordinates. */
export function isP256Point(jwk: { x: string; y: string }): boolean {
  try {
    const x = Buffer.from(jwk.x, 'base64url')
    const y = Buffer.from(jwk.y, 'base64url')
    if (x.length !== 32 || y.length !== 32) return false
    p256.Point.fromBytes(Buffer.concat([Uint8Array.of(4), x, y])).assertValidity()
    return true
  } catch {
    return false
  }
}
