/**
 * The holder's keys on WebCrypto (`globalThis.crypto.subtle`, Node and browsers alike): Ed25519
 * for EdDSA (RFC 8037) and P-256 for ES256 (RFC 7518 §3.4), each named by its did:key.
 */
import { base64url } from 'jose'
import { didKeyVerificationMethod, ed25519DidKey, p256DidKey } from './did-key.js'

export type HolderAlg = 'EdDSA' | 'ES256'

/** A holder's key pair on WebCrypto, named by its did:key. */
export interface HolderKey {
  did: string
  /** The did:key verification method (`${did}#${multibase}`) JWS headers name as `kid`. */
  kid: string
  alg: HolderAlg
  publicJwk: JsonWebKey
  privateKey: CryptoKey
}

/** WebCrypto's name of each JWS algorithm's key. */
const ALGORITHMS: Record<HolderAlg, EcKeyImportParams | Algorithm> = {
  EdDSA: { name: 'Ed25519' },
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
}

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle
  if (!s)
    throw new Error(
      'WebCrypto (crypto.subtle) is not available: a secure context (https or localhost) is needed in browsers',
    )
  return s
}

async function didOf(alg: HolderAlg, publicKey: CryptoKey): Promise<string> {
  const raw = new Uint8Array(await subtle().exportKey('raw', publicKey))
  return alg === 'EdDSA' ? ed25519DidKey(raw) : p256DidKey(raw)
}

/** The public members of a JWK (RFC 7517 §4, RFC 7518 §6.2.1, RFC 8037 §2). */
function publicPart(jwk: JsonWebKey): JsonWebKey {
  return jwk.kty === 'EC' ? { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y } : { kty: jwk.kty, crv: jwk.crv, x: jwk.x }
}

async function holderKey(alg: HolderAlg, publicKey: CryptoKey, privateKey: CryptoKey): Promise<HolderKey> {
  const did = await didOf(alg, publicKey)
  const publicJwk = publicPart(await subtle().exportKey('jwk', publicKey))
  return { did, kid: didKeyVerificationMethod(did), alg, publicJwk, privateKey }
}

/** The key's did:jwk (did:jwk spec: `did:jwk:` + BASE64URL(UTF-8(public JWK))), the alternative to its did:key. */
export function holderDidJwk(k: HolderKey): string {
  return `did:jwk:${base64url.encode(JSON.stringify(k.publicJwk))}`
}

/** A new key pair. The private key is not extractable unless asked (it can then be saved with exportHolderKey). */
export async function generateHolderKey(o: { alg?: HolderAlg; extractable?: boolean } = {}): Promise<HolderKey> {
  const alg = o.alg ?? 'EdDSA'
  const pair = (await subtle().generateKey(ALGORITHMS[alg], o.extractable ?? false, [
    'sign',
    'verify',
  ])) as CryptoKeyPair
  return holderKey(alg, pair.publicKey, pair.privateKey)
}

/** The private key as a JWK (RFC 7517), to keep somewhere safe; needs a key made or imported extractable. */
export async function exportHolderKey(k: HolderKey): Promise<{ did: string; alg: HolderAlg; privateJwk: JsonWebKey }> {
  if (!k.privateKey.extractable)
    throw new Error('This holder key is not extractable: generate or import it with { extractable: true } to export it')
  const jwk = await subtle().exportKey('jwk', k.privateKey)
  const { kty, crv, x, y, d } = jwk
  return { did: k.did, alg: k.alg, privateJwk: kty === 'EC' ? { kty, crv, x, y, d } : { kty, crv, x, d } }
}

/** A key saved by exportHolderKey: an Ed25519 (OKP) or P-256 (EC) private JWK. */
export async function importHolderKey(privateJwk: JsonWebKey, o: { extractable?: boolean } = {}): Promise<HolderKey> {
  const alg = algOf(privateJwk)
  if (typeof privateJwk.d !== 'string' || privateJwk.d === '') throw new Error('The JWK has no private key (d)')
  const publicJwk = publicPart(privateJwk)
  const privateKey = await subtle().importKey(
    'jwk',
    { ...publicJwk, d: privateJwk.d },
    ALGORITHMS[alg],
    o.extractable ?? false,
    ['sign'],
  )
  const publicKey = await subtle().importKey('jwk', publicJwk, ALGORITHMS[alg], true, ['verify'])
  return holderKey(alg, publicKey, privateKey)
}

function algOf(jwk: JsonWebKey): HolderAlg {
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA'
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256'
  throw new Error(`Unsupported key: kty ${String(jwk.kty)}, crv ${String(jwk.crv)} (Ed25519 or P-256 only)`)
}

/** WebCrypto's signature parameters for the key's algorithm (ES256 signs SHA-256, r‖s as JWS wants). */
export function signParams(alg: HolderAlg): AlgorithmIdentifier | EcdsaParams {
  return alg === 'EdDSA' ? { name: 'Ed25519' } : { name: 'ECDSA', hash: 'SHA-256' }
}

/** A raw signature by the holder's key. */
export async function signBytes(k: HolderKey, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().sign(signParams(k.alg), k.privateKey, data as Uint8Array<ArrayBuffer>))
}
