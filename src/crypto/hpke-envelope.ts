import * as HPKE from 'hpke'
import type { KeyObject } from 'node:crypto'

/**
 * The sealed envelope, format v2: HPKE (RFC 9180) base mode, single-shot, through the `hpke`
 * library on Node's WebCrypto, so any HPKE implementation with ML-KEM-768 opens it
 * (docs/wallet.md "Sealed material"). The suite ids are written in the envelope.
 */
export const ENVELOPE_V2 = 'sealed-envelope/v2'

export interface HpkeSuiteIds {
  kem_id: number
  kdf_id: number
  aead_id: number
}

/**
 * What the service seals with: ML-KEM-768 (0x0041, draft-ietf-hpke-pq), HKDF-SHA256 (0x0001),
 * AES-256-GCM (0x0002, the 256-bit AEAD the draft names for regimes that ask for one; v1 used it).
 */
export const SEAL_SUITE: HpkeSuiteIds = { kem_id: 0x0041, kdf_id: 0x0001, aead_id: 0x0002 }

export interface EnvelopeV2 extends HpkeSuiteIds {
  format: typeof ENVELOPE_V2
  /** RFC 9180 mode_base. */
  mode: 0
  /** base64url: the KEM ciphertext (1088 bytes) and the AEAD ciphertext with its tag. */
  enc: string
  ct: string
}

/**
 * What an envelope is bound to, neither of which it carries: the DID it was sealed for goes into
 * HPKE's `info`, the record's id (credential or evidence) into the AEAD's `aad`. The public
 * envelope names no holder, and cannot be passed off as another record or another DID's.
 */
export interface EnvelopeBinding {
  recipient: string
  recordId: string
}

export const envelopeInfo = (binding: EnvelopeBinding) =>
  new TextEncoder().encode(`${ENVELOPE_V2} ${binding.recipient}`)
export const envelopeAad = (binding: EnvelopeBinding) => new TextEncoder().encode(binding.recordId)

const KEMS: Record<number, HPKE.KEMFactory> = { 0x0041: HPKE.KEM_ML_KEM_768 }
const KDFS: Record<number, HPKE.KDFFactory> = { 0x0001: HPKE.KDF_HKDF_SHA256 }
// AES-128-GCM opens too: it is the suite of the draft's ML-KEM-768 test vector.
const AEADS: Record<number, HPKE.AEADFactory> = { 0x0001: HPKE.AEAD_AES_128_GCM, 0x0002: HPKE.AEAD_AES_256_GCM }
const suites = new Map<string, HPKE.CipherSuite>()

/** The library's cipher suite for these ids; only ML-KEM-768 with HKDF-SHA256 and AES-GCM are accepted. */
export function cipherSuite(ids: HpkeSuiteIds): HPKE.CipherSuite {
  const name = `${ids.kem_id}/${ids.kdf_id}/${ids.aead_id}`
  let suite = suites.get(name)
  if (!suite) {
    const [kem, kdf, aead] = [
      Object.hasOwn(KEMS, ids.kem_id) && KEMS[ids.kem_id],
      Object.hasOwn(KDFS, ids.kdf_id) && KDFS[ids.kdf_id],
      Object.hasOwn(AEADS, ids.aead_id) && AEADS[ids.aead_id],
    ]
    if (!kem || !kdf || !aead)
      throw new RangeError(`unsupported HPKE suite (kem ${ids.kem_id}, kdf ${ids.kdf_id}, aead ${ids.aead_id})`)
    suite = new HPKE.CipherSuite(kem, kdf, aead)
    suites.set(name, suite)
  }
  return suite
}

export async function sealEnvelope(
  publicKey: Uint8Array,
  plaintext: Uint8Array,
  binding: EnvelopeBinding,
): Promise<EnvelopeV2> {
  const suite = cipherSuite(SEAL_SUITE)
  const sealed = await suite.Seal(await suite.DeserializePublicKey(publicKey), plaintext, {
    info: envelopeInfo(binding),
    aad: envelopeAad(binding),
  })
  return {
    format: ENVELOPE_V2,
    mode: 0,
    ...SEAL_SUITE,
    enc: Buffer.from(sealed.encapsulatedSecret).toString('base64url'),
    ct: Buffer.from(sealed.ciphertext).toString('base64url'),
  }
}

/** RFC 9180 single-shot Open (base mode) with a node:crypto ML-KEM-768 key; throws if anything was altered or bound otherwise. */
export async function hpkeOpen(
  ids: HpkeSuiteIds,
  privateKey: KeyObject,
  enc: Uint8Array,
  ct: Uint8Array,
  info: Uint8Array,
  aad: Uint8Array,
): Promise<Uint8Array> {
  const key = privateKey.toCryptoKey({ name: 'ML-KEM-768' }, false, ['decapsulateBits'])
  return new Uint8Array(await cipherSuite(ids).Open(key, enc, ct, { info, aad }))
}

export function openEnvelopeV2(
  privateKey: KeyObject,
  envelope: EnvelopeV2,
  binding: EnvelopeBinding,
): Promise<Uint8Array> {
  return hpkeOpen(
    envelope,
    privateKey,
    Buffer.from(envelope.enc, 'base64url'),
    Buffer.from(envelope.ct, 'base64url'),
    envelopeInfo(binding),
    envelopeAad(binding),
  )
}
