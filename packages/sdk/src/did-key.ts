/**
 * did:key names (W3C CCG did:key spec v0.7): the multicodec of the public key type, then the
 * raw public key, in base58btc multibase ("z…"). Ed25519 keys (ed25519-pub, 0xed) give
 * `did:key:z6Mk…`; P-256 keys (p256-pub, 0x1200, the point compressed as SEC 1 §2.3.3 asks) `did:key:zDn…`.
 */
import { p256 } from '@noble/curves/nist.js'
import { varint } from 'multiformats'
import { base58btc } from 'multiformats/bases/base58'

const ED25519_PUB = 0xed
const P256_PUB = 0x1200

function multikey(codec: number, key: Uint8Array): string {
  const prefix = varint.encodingLength(codec)
  const bytes = new Uint8Array(prefix + key.length)
  varint.encodeTo(codec, bytes)
  bytes.set(key, prefix)
  return base58btc.encode(bytes)
}

/** The did:key of an Ed25519 public key (32 raw bytes). */
export function ed25519DidKey(raw: Uint8Array): string {
  return `did:key:${multikey(ED25519_PUB, raw)}`
}

/** The did:key of a P-256 public key given uncompressed (65 bytes, what WebCrypto's `raw` export answers). */
export function p256DidKey(uncompressed: Uint8Array): string {
  // WebCrypto exports P-256 points uncompressed only; the did:key spec asks for the compressed form.
  return `did:key:${multikey(P256_PUB, p256.Point.fromBytes(uncompressed).toBytes(true))}`
}

/** The verification method id of a did:key: the DID, `#`, its own multibase key (did:key spec §3.1.2). */
export function didKeyVerificationMethod(did: string): string {
  return `${did}#${did.slice('did:key:'.length)}`
}
