import assert from 'node:assert/strict'
import { Aes256Gcm, CipherSuite, HkdfSha256 } from '@hpke/core'
import { MlKem768 } from '@hpke/ml-kem'

/**
 * A holder opening its sealed material with a second HPKE implementation (dajiaji/hpke-js with
 * its pure-JS ML-KEM), following docs/wallet.md "Sealed material" and nothing of the service's
 * code: if the service or the document drift, the tests using this fail.
 */
const suite = new CipherSuite({ kem: new MlKem768(), kdf: new HkdfSha256(), aead: new Aes256Gcm() })
const utf8 = (text: string) => new TextEncoder().encode(text)
const fromBase64url = (text: string) => new Uint8Array(Buffer.from(text, 'base64url'))

export interface HolderKemPair {
  publicKey: Uint8Array
  /** The 64-byte seed (draft-ietf-hpke-pq's serialized private key). */
  privateKey: Uint8Array
}

export async function holderKemPair(): Promise<HolderKemPair> {
  const pair = await suite.kem.generateKeyPair()
  return {
    publicKey: new Uint8Array(await suite.kem.serializePublicKey(pair.publicKey)),
    privateKey: new Uint8Array(await suite.kem.serializePrivateKey(pair.privateKey)),
  }
}

export async function openAsHolder(
  privateKey: Uint8Array,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  envelope: any,
  recipientDid: string,
  recordId: string,
): Promise<Uint8Array> {
  assert.equal(envelope.format, 'sealed-envelope/v2')
  assert.deepEqual([envelope.mode, envelope.kem_id, envelope.kdf_id, envelope.aead_id], [0, 0x0041, 0x0001, 0x0002])
  const recipientKey = await suite.kem.importKey('raw', privateKey, false)
  const opened = await suite.open(
    { recipientKey, enc: fromBase64url(envelope.enc), info: utf8(`sealed-envelope/v2 ${recipientDid}`) },
    fromBase64url(envelope.ct),
    utf8(recordId),
  )
  return new Uint8Array(opened)
}

/** The reverse direction: an envelope another implementation sealed, for the service to open. */
export async function sealAsOutsider(
  publicKey: Uint8Array,
  plaintext: Uint8Array,
  recipientDid: string,
  recordId: string,
) {
  const recipientPublicKey = await suite.kem.importKey('raw', publicKey, true)
  const { enc, ct } = await suite.seal(
    { recipientPublicKey, info: utf8(`sealed-envelope/v2 ${recipientDid}`) },
    plaintext,
    utf8(recordId),
  )
  return {
    format: 'sealed-envelope/v2',
    mode: 0,
    kem_id: 0x0041,
    kdf_id: 0x0001,
    aead_id: 0x0002,
    enc: Buffer.from(enc).toString('base64url'),
    ct: Buffer.from(ct).toString('base64url'),
  }
}
