import { ENVELOPE_V2, openEnvelopeV2, sealEnvelope, type EnvelopeBinding, type EnvelopeV2 } from './hpke-envelope.js'
import { ENVELOPE_V1_ALG, openEnvelopeV1, type EnvelopeV1 } from './legacy-kem-envelope.js'
import { mlKem768PrivateKey } from './ml-kem-keys.js'

export type { EnvelopeBinding, EnvelopeV2 }

/**
 * What the content store holds for sealed material (DESIGN.md principle 4, `kyber_encrypted`):
 * the HPKE envelope (v2) is written; the v1 envelope of earlier releases is still read.
 */
export type StoredEnvelope = EnvelopeV2 | EnvelopeV1

export interface SealRequest {
  /** The recipient's ML-KEM-768 encapsulation key. */
  publicKey: Uint8Array
  plaintext: Uint8Array
  binding: EnvelopeBinding
}

/** Seals material to a holder's key; passed to the services so a test can swap it. */
export interface EnvelopeSealer {
  seal(req: SealRequest): Promise<EnvelopeV2>
}

/** On the calling thread: WebCrypto runs the KEM and the AEAD on libuv's threads, whatever the plaintext's size. */
export const hpkeSealer: EnvelopeSealer = {
  seal: (req) => sealEnvelope(req.publicKey, req.plaintext, req.binding),
}

const BASE64URL = /^[A-Za-z0-9_-]*$/
const isText = (value: unknown): value is string => typeof value === 'string' && BASE64URL.test(value)

/** The parsed JSON of a stored envelope, checked to be one of the two formats (TypeError otherwise). */
export function asStoredEnvelope(json: unknown): StoredEnvelope {
  const e = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>
  if (
    e.format === ENVELOPE_V2 &&
    e.mode === 0 &&
    [e.kem_id, e.kdf_id, e.aead_id].every(Number.isSafeInteger) &&
    isText(e.enc) &&
    isText(e.ct)
  ) {
    return e as unknown as EnvelopeV2
  }
  if (e.alg === ENVELOPE_V1_ALG && [e.kem_ciphertext, e.iv, e.ciphertext, e.tag].every(isText))
    return e as unknown as EnvelopeV1
  throw new TypeError('not a sealed envelope of a known format')
}

/** Opens either format with the private key as the key store holds it (seed, or expanded for older keys). */
export async function openEnvelope(
  privateKey: Uint8Array,
  envelope: StoredEnvelope,
  binding: EnvelopeBinding,
): Promise<Uint8Array> {
  const key = mlKem768PrivateKey(privateKey)
  return 'format' in envelope ? openEnvelopeV2(key, envelope, binding) : openEnvelopeV1(key, envelope, binding.recordId)
}
