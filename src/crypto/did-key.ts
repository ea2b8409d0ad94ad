/**
 * did:key encoding (W3C CCG did:key spec v0.7): `did:key:` + multibase base58btc (`z`) of an
 * unsigned-varint multicodec prefix followed by the raw public key. Pure, no I/O.
 */
import { createPublicKey } from 'node:crypto'
import { base58btc } from 'multiformats/bases/base58'
import { varint } from 'multiformats'
import { ed25519 } from '@noble/curves/ed25519.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { p256, p384, p521 } from '@noble/curves/nist.js'
import { bls12_381 } from '@noble/curves/bls12-381.js'
import { ValidationError } from '../errors.js'

export type KeyCodec = 'ed25519' | 'x25519' | 'secp256k1' | 'p256' | 'p384' | 'p521' | 'bls12381g2' | 'rsa'

interface CodecSpec {
  /** Multicodec table code (github.com/multiformats/multicodec, table.csv). */
  code: number
  /** Raw key length; EC keys are compressed (did:key spec §"Signature Method Creation"). */
  length?: number
  /** Validates the key and returns its canonical bytes; throws on an invalid key. */
  check: (key: Uint8Array) => Uint8Array
}

/** Weierstrass curves and their JWK `crv` names (RFC 7518 §6.2.1.1, RFC 8812 §3.1). */
const EC_CURVES = {
  secp256k1: [secp256k1, 'secp256k1'],
  p256: [p256, 'P-256'],
  p384: [p384, 'P-384'],
  p521: [p521, 'P-521'],
} as const

const ecPoint =
  (curve: { Point: { fromBytes(b: Uint8Array): { toBytes(compressed?: boolean): Uint8Array } } }) =>
  (key: Uint8Array): Uint8Array =>
    curve.Point.fromBytes(key).toBytes(true)

const CODECS: Record<KeyCodec, CodecSpec> = {
  ed25519: { code: 0xed, length: 32, check: (k) => (ed25519.Point.fromBytes(k), k) },
  x25519: { code: 0xec, length: 32, check: (k) => k },
  secp256k1: { code: 0xe7, length: 33, check: ecPoint(secp256k1) },
  p256: { code: 0x1200, length: 33, check: ecPoint(p256) },
  p384: { code: 0x1201, length: 49, check: ecPoint(p384) },
  p521: { code: 0x1202, length: 67, check: ecPoint(p521) },
  bls12381g2: { code: 0xeb, length: 96, check: (k) => (bls12_381.G2.Point.fromBytes(k), k) },
  // DER RSAPublicKey (RFC 8017 §A.1.1); node:crypto parses and validates it.
  rsa: { code: 0x1205, check: (k) => (createPublicKey({ key: Buffer.from(k), format: 'der', type: 'pkcs1' }), k) },
}

/** Public-key codes we know by name but do not resolve, for a precise error message. */
const KNOWN_UNSUPPORTED: Record<number, string> = {
  0xea: 'bls12_381-g1-pub',
  0xee: 'bls12_381-g1g2-pub',
  0x1203: 'ed448-pub',
  0x1204: 'x448-pub',
  0x1206: 'sm2-pub',
}

const BY_CODE = new Map<number, KeyCodec>(
  (Object.entries(CODECS) as [KeyCodec, CodecSpec][]).map(([name, spec]) => [spec.code, name]),
)

export interface DecodedKey {
  codec: KeyCodec
  publicKey: Uint8Array
  /** The `z...` multibase value, also the fragment of the did:key verification method. */
  multibase: string
}

/** Decodes a multibase multicodec public key (`z6Mk...`), as used by did:key and Multikey. */
export function decodeMultibaseKey(multibase: string): DecodedKey {
  if (!multibase.startsWith('z')) {
    throw new ValidationError('A did:key value must be multibase base58btc (start with "z")')
  }
  let bytes: Uint8Array
  let code: number
  let offset: number
  try {
    bytes = base58btc.decode(multibase)
    ;[code, offset] = varint.decode(bytes)
  } catch (cause) {
    throw new ValidationError('The did:key value is not valid base58btc multicodec data', { cause })
  }
  const codec = BY_CODE.get(code)
  if (codec === undefined) {
    const name = KNOWN_UNSUPPORTED[code] ?? 'unknown'
    throw new ValidationError(`Unsupported did:key key type: ${name} (multicodec 0x${code.toString(16)})`, {
      details: { multicodec: code },
    })
  }
  const publicKey = canonicalPublicKey(codec, bytes.subarray(offset))
  if (publicKeyToMultibase(codec, publicKey) !== multibase) {
    throw new ValidationError(`The ${codec} key in this did:key is not in its canonical (compressed) form`)
  }
  return { codec, publicKey, multibase }
}

export function decodeDidKey(did: string): DecodedKey {
  const prefix = 'did:key:'
  if (!did.startsWith(prefix)) throw new ValidationError(`Not a did:key: ${did}`)
  return decodeMultibaseKey(did.slice(prefix.length))
}

export function encodeDidKey(codec: KeyCodec, publicKey: Uint8Array): string {
  return `did:key:${publicKeyToMultibase(codec, canonicalPublicKey(codec, publicKey))}`
}

export function publicKeyToMultibase(codec: KeyCodec, publicKey: Uint8Array): string {
  const { code } = CODECS[codec]
  const bytes = new Uint8Array(varint.encodingLength(code) + publicKey.length)
  varint.encodeTo(code, bytes, 0)
  bytes.set(publicKey, varint.encodingLength(code))
  return base58btc.encode(bytes)
}

/**
 * Checks length and validity (did:key spec "Decode Public Key": invalidPublicKeyLength,
 * invalidPublicKey) and returns the canonical bytes (EC points compressed).
 */
export function canonicalPublicKey(codec: KeyCodec, publicKey: Uint8Array): Uint8Array {
  const spec = CODECS[codec]
  // Uncompressed SEC1 points (0x04 || x || y) are accepted on encode and compressed.
  const uncompressedEc = codec in EC_CURVES
  const lengthOk =
    spec.length === undefined ||
    publicKey.length === spec.length ||
    (uncompressedEc && publicKey.length === 2 * (spec.length ?? 0) - 1)
  if (!lengthOk) {
    throw new ValidationError(`Invalid ${codec} public key length ${publicKey.length}, expected ${spec.length}`)
  }
  try {
    return new Uint8Array(spec.check(publicKey))
  } catch (cause) {
    throw new ValidationError(`Invalid ${codec} public key`, { cause })
  }
}

/** Ed25519 public key to its birationally equivalent X25519 key (RFC 7748 §4.1). */
export function ed25519ToX25519(publicKey: Uint8Array): Uint8Array {
  return ed25519.utils.toMontgomery(canonicalPublicKey('ed25519', publicKey))
}

const b64u = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url')

/**
 * Public JWK for a key (RFC 7517; OKP per RFC 8037; EC per RFC 7518 §6.2; secp256k1 per
 * RFC 8812). BLS12-381 follows the draft the did:key vectors use (`kty: EC`, `crv: BLS12381_G2`).
 */
export function publicKeyToJwk(codec: KeyCodec, publicKey: Uint8Array): Record<string, string> {
  switch (codec) {
    case 'ed25519':
      return { kty: 'OKP', crv: 'Ed25519', x: b64u(publicKey) }
    case 'x25519':
      return { kty: 'OKP', crv: 'X25519', x: b64u(publicKey) }
    case 'bls12381g2':
      return { kty: 'EC', crv: 'BLS12381_G2', x: b64u(publicKey) }
    case 'rsa': {
      const jwk = createPublicKey({ key: Buffer.from(publicKey), format: 'der', type: 'pkcs1' }).export({
        format: 'jwk',
      })
      return { kty: 'RSA', n: String(jwk.n), e: String(jwk.e) }
    }
    default: {
      const [curve, crv] = EC_CURVES[codec]
      const point = curve.Point.fromBytes(publicKey).toBytes(false)
      const size = (point.length - 1) / 2
      return { kty: 'EC', crv, x: b64u(point.subarray(1, 1 + size)), y: b64u(point.subarray(1 + size)) }
    }
  }
}
