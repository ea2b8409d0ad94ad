import { base58btc } from 'multiformats/bases/base58'
import { decodeBase64Any } from '../../crypto/encoding.js'
import { ValidationError } from '../../errors.js'

// multicodec ed25519-pub (0xed) as an unsigned varint.
const ED25519_PREFIX = Uint8Array.of(0xed, 0x01)

/** Ed25519 public key as multibase base58btc with the multicodec prefix (`z6Mk…`). */
export function ed25519Multibase(publicKey: Uint8Array): string {
  const prefixed = new Uint8Array(34)
  prefixed.set(ED25519_PREFIX)
  prefixed.set(publicKey, 2)
  return base58btc.encode(prefixed)
}

/**
 * Accepts the spec's "base64 or multibase text": `z6Mk…` (multicodec-prefixed), bare
 * base58btc, or base64/base64url of the 32 raw bytes. Returns the raw key.
 */
export function decodePublicKeyText(text: string): Uint8Array {
  if (text.startsWith('z')) {
    try {
      const bytes = base58btc.decode(text)
      if (bytes.length === 34 && bytes[0] === 0xed && bytes[1] === 0x01) return bytes.subarray(2)
      if (bytes.length === 32) return bytes
    } catch {
      // fall through to the other encodings
    }
  }
  try {
    const bytes = base58btc.baseDecode(text)
    if (bytes.length === 32) return bytes
  } catch {
    // not base58
  }
  const bytes = decodeBase64Any(text)
  if (bytes?.length === 32) return bytes
  throw new ValidationError(
    'public_key must be an Ed25519 public key (multibase z6Mk…, base58btc or base64 of 32 bytes)',
  )
}
