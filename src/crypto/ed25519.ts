import { createPrivateKey, createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto'

/**
 * Ed25519 (RFC 8032) keys on node:crypto, from and to raw 32-byte keys (the form DID documents
 * and the key store hold). JWS signing and verification go through jose (jws.ts).
 */
export function ed25519PublicKeyObject(raw: Uint8Array): KeyObject {
  if (raw.length !== 32) throw new Error('Ed25519 public key must be 32 bytes')
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') },
    format: 'jwk',
  })
}

export function ed25519PrivateKeyObject(seed: Uint8Array, publicKey: Uint8Array): KeyObject {
  return createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: Buffer.from(seed).toString('base64url'),
      x: Buffer.from(publicKey).toString('base64url'),
    },
    format: 'jwk',
  })
}

export interface Ed25519KeyPair {
  publicKey: Uint8Array
  /** The 32-byte seed (RFC 8032 private key). */
  privateKey: Uint8Array
}

export function generateEd25519(): Ed25519KeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  return rawKeyPair(privateKey, publicKey)
}

export function ed25519FromSeed(seed: Uint8Array): Ed25519KeyPair {
  if (seed.length !== 32) throw new Error('Ed25519 private key must be 32 bytes')
  // PKCS#8 prefix for an Ed25519 seed (RFC 8410 §7).
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seed)])
  const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
  return rawKeyPair(privateKey, createPublicKey(privateKey))
}

function rawKeyPair(privateKey: KeyObject, publicKey: KeyObject): Ed25519KeyPair {
  const jwk = privateKey.export({ format: 'jwk' })
  const pub = publicKey.export({ format: 'jwk' })
  return { privateKey: Buffer.from(jwk.d!, 'base64url'), publicKey: Buffer.from(pub.x!, 'base64url') }
}

/**
 * A bare Ed25519 signature check (RFC 8032 §5.1.7), for the login challenge the interface spec
 * has signed raw rather than as a JWS. The callback form runs on libuv's thread pool, off the
 * event loop.
 */
export function ed25519VerifyAsync(publicKey: KeyObject, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
  if (signature.length !== 64) return Promise.resolve(false)
  return new Promise((resolve, reject) =>
    verify(null, message, publicKey, signature, (err, ok) => (err ? reject(err) : resolve(ok))),
  )
}
