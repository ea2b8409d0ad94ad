import { sealToRecipient, type Encapsulate, type KemEnvelope } from './kem-envelope.js'
import { loadWasmEncapsulate } from './ml-kem-wasm.js'

export interface SealArgs {
  publicKey: Uint8Array
  plaintext: Uint8Array
  associatedData: string
}

/** ML-KEM-768 sealing of a plaintext to a holder's key (kem-envelope.ts). */
export interface KemSealer {
  seal(req: SealArgs): Promise<KemEnvelope>
}

/**
 * Plaintexts up to this size are sealed on the calling thread: credential material is 2 to 5 kB,
 * and its seal (liboqs Encaps + HKDF + AES-256-GCM, about 0.15 ms) costs less than handing it to a
 * worker and back. Measured with JWT-only issuance on PGlite (interleaved runs, docs/decisions.md):
 * 923–946 credentials/s with every seal in the worker pool, 1,229–1,248/s sealed here; the server's
 * CPU per credential fell from 1.53–1.61 to 1.07–1.10 ms, its event loop's included. Larger ones
 * (evidence files, up to EVIDENCE_MAX_BYTES) go to the pool, where AES over megabytes does not
 * hold the event loop.
 */
export const INLINE_SEAL_MAX_BYTES = 64 * 1024

/**
 * Seals on this thread or through `offThread` (the worker pool) by size. The WebAssembly
 * encapsulation loads on the first seal (once per thread, like the workers').
 */
export function createKemSealer(offThread: KemSealer, options: { inlineMaxBytes?: number } = {}): KemSealer {
  const inlineMaxBytes = options.inlineMaxBytes ?? INLINE_SEAL_MAX_BYTES
  let encapsulate: Promise<Encapsulate> | undefined
  return {
    async seal(req) {
      if (req.plaintext.byteLength > inlineMaxBytes) return offThread.seal(req)
      encapsulate ??= loadWasmEncapsulate().catch((error: unknown) => {
        encapsulate = undefined
        throw error
      })
      return sealToRecipient(req.publicKey, req.plaintext, req.associatedData, await encapsulate)
    },
  }
}
