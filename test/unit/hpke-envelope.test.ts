import assert from 'node:assert/strict'
import { createPublicKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { cipherSuite, hpkeOpen, SEAL_SUITE } from '../../src/crypto/hpke-envelope.js'
import { assertMlKem768PublicKey, generateMlKem768KeyPair, mlKem768PrivateKey } from '../../src/crypto/ml-kem-keys.js'
import { asStoredEnvelope, hpkeSealer, openEnvelope } from '../../src/crypto/sealed-envelope.js'
import { holderKemPair, openAsHolder, sealAsOutsider } from '../helpers/hpke-holder.js'

interface Vector {
  mode: number
  kem_id: number
  kdf_id: number
  aead_id: number
  info: string
  ikmR: string
  skRm: string
  pkRm: string
  enc: string
  encryptions: Array<{ aad: string; ct: string; pt: string }>
  exports: Array<{ exporter_context: string; L: number; exported_value: string }>
}

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'))
const hex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'))
const utf8 = (text: string) => new TextEncoder().encode(text)
const vectors = fixture('hpke-pq-ml-kem-768-vectors.json') as Vector[]
const legacy = fixture('sealed-envelope-v1.json')

describe('HPKE with ML-KEM-768: the draft-ietf-hpke-pq test vectors', () => {
  assert.ok(vectors.length > 0)
  for (const [i, v] of vectors.entries()) {
    it(`vector ${i} (kem ${v.kem_id}, kdf ${v.kdf_id}, aead ${v.aead_id}): DeriveKeyPair, the key encodings, Open and Export`, async () => {
      assert.equal(v.mode, 0)
      const suite = cipherSuite(v)
      const derived = await suite.DeriveKeyPair(hex(v.ikmR), true)
      assert.deepEqual(await suite.SerializePrivateKey(derived.privateKey), hex(v.skRm))
      assert.deepEqual(await suite.SerializePublicKey(derived.publicKey), hex(v.pkRm))
      // The service's own key path: the 64-byte seed into node:crypto gives the same encapsulation key.
      const privateKey = mlKem768PrivateKey(hex(v.skRm))
      assertMlKem768PublicKey(hex(v.pkRm))
      assert.deepEqual(new Uint8Array(createPublicKey(privateKey).export({ format: 'raw-public' })), hex(v.pkRm))
      // Single-shot Open is sequence 0: the service's open path.
      const first = v.encryptions[0]!
      assert.deepEqual(
        await hpkeOpen(v, privateKey, hex(v.enc), hex(first.ct), hex(v.info), hex(first.aad)),
        hex(first.pt),
      )
      await assert.rejects(hpkeOpen(v, privateKey, hex(v.enc), hex(first.ct), hex(v.info), utf8('other')))
      // Every later sequence number and export, through a context of the same suite.
      const context = await suite.SetupRecipient(
        privateKey.toCryptoKey({ name: 'ML-KEM-768' }, false, ['decapsulateBits']),
        hex(v.enc),
        { info: hex(v.info) },
      )
      for (const e of v.encryptions) assert.deepEqual(await context.Open(hex(e.ct), hex(e.aad)), hex(e.pt))
      for (const e of v.exports)
        assert.deepEqual(await context.Export(hex(e.exporter_context), e.L), hex(e.exported_value))
    })
  }

  it('accepts no suite outside ML-KEM-768 / HKDF-SHA256 / AES-GCM', () => {
    assert.throws(() => cipherSuite({ kem_id: 0x0020, kdf_id: 1, aead_id: 2 }), RangeError)
    assert.throws(() => cipherSuite({ kem_id: 0x0041, kdf_id: 3, aead_id: 2 }), RangeError)
    assert.throws(() => cipherSuite({ kem_id: 0x0041, kdf_id: 1, aead_id: 0xffff }), RangeError)
    assert.throws(() => cipherSuite({ kem_id: Number('toString'), kdf_id: 1, aead_id: 2 }), RangeError)
  })
})

describe('sealed envelope v2', () => {
  const holder = generateMlKem768KeyPair()
  const binding = { recipient: 'did:key:z6MkholderAAA', recordId: 'aly:123' }
  const plaintext = utf8('{"given_name":"Alice","birth_date":"1990-01-01"}')

  it('names its suite, carries neither plaintext nor holder, and opens only with the same key, DID and record id', async () => {
    assert.equal(holder.publicKey.length, 1184)
    assert.equal(holder.privateKey.length, 64)
    const envelope = await hpkeSealer.seal({ publicKey: holder.publicKey, plaintext, binding })
    assert.deepEqual(Object.keys(envelope).sort(), ['aead_id', 'ct', 'enc', 'format', 'kdf_id', 'kem_id', 'mode'])
    assert.deepEqual(
      [envelope.format, envelope.mode, envelope.kem_id, envelope.kdf_id, envelope.aead_id],
      ['sealed-envelope/v2', 0, SEAL_SUITE.kem_id, SEAL_SUITE.kdf_id, SEAL_SUITE.aead_id],
    )
    assert.equal(Buffer.from(envelope.enc, 'base64url').length, 1088)
    const text = JSON.stringify(envelope)
    for (const needle of ['Alice', binding.recipient, binding.recordId]) assert.ok(!text.includes(needle), needle)
    const stored = asStoredEnvelope(JSON.parse(text))
    assert.deepEqual(await openEnvelope(holder.privateKey, stored, binding), plaintext)
    // A fresh encapsulation every time.
    assert.notEqual((await hpkeSealer.seal({ publicKey: holder.publicKey, plaintext, binding })).enc, envelope.enc)

    await assert.rejects(openEnvelope(generateMlKem768KeyPair().privateKey, stored, binding))
    await assert.rejects(openEnvelope(holder.privateKey, stored, { ...binding, recordId: 'aly:456' }))
    await assert.rejects(openEnvelope(holder.privateKey, stored, { ...binding, recipient: 'did:key:z6MkotherBBB' }))
    for (const part of ['enc', 'ct'] as const) {
      const bytes = Buffer.from(envelope[part], 'base64url')
      bytes[7] = bytes[7]! ^ 1
      await assert.rejects(
        openEnvelope(holder.privateKey, { ...stored, [part]: bytes.toString('base64url') } as typeof stored, binding),
        part,
      )
    }
  })

  it('opens with a second implementation (@hpke/core + @hpke/ml-kem), and opens what that one seals', async () => {
    const envelope = await hpkeSealer.seal({ publicKey: holder.publicKey, plaintext, binding })
    assert.deepEqual(await openAsHolder(holder.privateKey, envelope, binding.recipient, binding.recordId), plaintext)
    await assert.rejects(openAsHolder(holder.privateKey, envelope, binding.recipient, 'aly:456'))
    // The other way: a key pair and an envelope made by the other implementation.
    const outsider = await holderKemPair()
    const foreign = await sealAsOutsider(outsider.publicKey, plaintext, binding.recipient, binding.recordId)
    assert.deepEqual(await openEnvelope(outsider.privateKey, asStoredEnvelope(foreign), binding), plaintext)
    const toOutsider = await hpkeSealer.seal({ publicKey: outsider.publicKey, plaintext, binding })
    assert.deepEqual(
      await openAsHolder(outsider.privateKey, toOutsider, binding.recipient, binding.recordId),
      plaintext,
    )
  })

  it('seals to a key made before HPKE and opens with its expanded private key', async () => {
    const publicKey = new Uint8Array(Buffer.from(legacy.public_key, 'base64url'))
    const expanded = new Uint8Array(Buffer.from(legacy.private_key_expanded, 'base64url'))
    assert.equal(expanded.length, 2400)
    const envelope = await hpkeSealer.seal({ publicKey, plaintext, binding })
    assert.deepEqual(await openEnvelope(expanded, envelope, binding), plaintext)
  })

  it('refuses keys that are not ML-KEM-768, and JSON that is no envelope', () => {
    // Coefficients of 0xFFF exceed q = 3329: the FIPS 203 §7.2 modulus check fails.
    assert.throws(() => assertMlKem768PublicKey(new Uint8Array(1184).fill(0xff)))
    assert.throws(() => assertMlKem768PublicKey(holder.publicKey.subarray(1)))
    assert.throws(() => mlKem768PrivateKey(new Uint8Array(32)), RangeError)
    for (const junk of [
      null,
      'x',
      {},
      { format: 'sealed-envelope/v2', mode: 0, kem_id: 65, kdf_id: 1, aead_id: 2, enc: 'a+b', ct: '' },
      { format: 'sealed-envelope/v3' },
      { alg: 'ML-KEM-768+HKDF-SHA256+A256GCM' },
    ]) {
      assert.throws(() => asStoredEnvelope(junk), TypeError)
    }
  })
})

describe('sealed envelope v1 (before HPKE): still opens', () => {
  const expanded = new Uint8Array(Buffer.from(legacy.private_key_expanded, 'base64url'))
  const binding = { recipient: 'did:key:any-v1-binds-no-did', recordId: legacy.associated_data as string }

  it('opens the fixture the old code sealed, with the key as it was stored', async () => {
    const envelope = asStoredEnvelope(legacy.envelope)
    assert.equal(Buffer.from(await openEnvelope(expanded, envelope, binding)).toString('utf8'), legacy.plaintext)
  })

  it('refuses another record id, an altered part and a shortened tag', async () => {
    const envelope = asStoredEnvelope(legacy.envelope)
    await assert.rejects(openEnvelope(expanded, envelope, { ...binding, recordId: 'evidence-other' }))
    for (const part of ['kem_ciphertext', 'iv', 'ciphertext', 'tag'] as const) {
      const bytes = Buffer.from(legacy.envelope[part], 'base64url')
      bytes[0] = bytes[0]! ^ 1
      await assert.rejects(
        openEnvelope(expanded, { ...envelope, [part]: bytes.toString('base64url') } as typeof envelope, binding),
        part,
      )
    }
    const shortTag = Buffer.from(legacy.envelope.tag, 'base64url').subarray(0, 4).toString('base64url')
    await assert.rejects(openEnvelope(expanded, { ...envelope, tag: shortTag } as typeof envelope, binding))
  })
})
