import { createHash, randomBytes, sign, verify, type KeyObject } from 'node:crypto'
import type { JwsKey } from '../../../did/jws-keys.js'

/**
 * The callbacks @sd-jwt/sd-jwt-vc takes (the library owns the protocol, node:crypto the
 * primitives). JWS signatures per RFC 7518 §3.4: ES256 is the raw r||s pair (IEEE P1363), not DER.
 */
export function jwsSignerCallback(privateKey: KeyObject, alg: string): (data: string) => Promise<string> {
  const key = alg === 'ES256' ? { key: privateKey, dsaEncoding: 'ieee-p1363' as const } : privateKey
  // The callback forms of sign and verify run on libuv's thread pool, off the event loop.
  return (data) =>
    new Promise((resolve, reject) =>
      sign(alg === 'ES256' ? 'sha256' : null, Buffer.from(data), key, (err, sig) =>
        err ? reject(err) : resolve(sig.toString('base64url')),
      ),
    )
}

/** Verifies a JWS signing input with a key pinned to its one algorithm; any other `alg` fails. */
export function jwsVerifies(key: JwsKey, headerAlg: unknown, data: string, signature: string): Promise<boolean> {
  if (headerAlg !== key.alg) return Promise.resolve(false)
  const sig = Buffer.from(signature, 'base64url')
  const publicKey = key.alg === 'ES256' ? { key: key.key, dsaEncoding: 'ieee-p1363' as const } : key.key
  return new Promise((resolve) =>
    verify(key.alg === 'ES256' ? 'sha256' : null, Buffer.from(data), publicKey, sig, (err, ok) => resolve(!err && ok)),
  )
}

/** SD-JWT (RFC 9901 §4.2.3) digests: `_sd_alg` sha-256 only. */
export function sha256Hasher(data: string | ArrayBuffer, alg: string): Uint8Array {
  if (alg.toLowerCase() !== 'sha-256') throw new Error(`unsupported _sd_alg ${alg}`)
  return new Uint8Array(
    createHash('sha256')
      .update(typeof data === 'string' ? data : Buffer.from(data))
      .digest(),
  )
}

/** RFC 9901 §9.3: salts of at least 128 bits from a cryptographically secure source. */
export const saltGenerator = (): string => randomBytes(16).toString('base64url')

/** The `alg` of a JWS signing input's protected header (what the verifier callback is given). */
export function headerAlgOf(data: string): unknown {
  try {
    return (JSON.parse(Buffer.from(data.split('.')[0] ?? '', 'base64url').toString('utf8')) as { alg?: unknown }).alg
  } catch {
    return undefined
  }
}
