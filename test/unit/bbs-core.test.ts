import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import dock from '@docknetwork/crypto-wasm-ts'
import * as core from '../../src/crypto/bbs/bbs-core.js'
import type { BbsMessage } from '../../src/crypto/bbs/bbs-messages.js'

const LABEL = 'test/bbs-core/did:example:issuer'
const utf8 = (s: string) => new TextEncoder().encode(s)
const messagesOf = (n: number): BbsMessage[] =>
  Array.from({ length: n }, (_, i) =>
    i % 2
      ? { name: `m${i}`, encoding: 'integer', value: i * 1000 + 7 }
      : { name: `m${i}`, encoding: 'text', value: `value ${i}` },
  )

/**
 * bbs-core signs with the library (Dock's BBS, Tessaro–Zhu 2023): what it signs is what the
 * library's own verification accepts, called here directly, and derivation refuses a stored
 * signature that does not match before proving (the library would prove over it regardless).
 */
describe('BBS through the library: signing, verification, derivation pre-check', () => {
  let keys: core.BbsKeyPair
  before(async () => {
    await core.initBbs()
    keys = core.generateKeyPair(LABEL)
  })

  it('signs what the library verifies, for several message counts; any altered message, key or label fails', () => {
    for (const count of [1, 2, 9, 13, 20]) {
      const messages = messagesOf(count)
      const signature = core.sign(keys.secretKey, LABEL, messages)
      assert.equal(signature.length, 80)
      assert.equal(core.verify(keys.publicKey, LABEL, messages, signature), true, `count ${count}`)
      // The library itself, with the params rebuilt from the label as an outsider does.
      const params = dock.BBSSignatureParams.generate(count, utf8(LABEL))
      const encoded = messages.map((m) =>
        m.encoding === 'integer'
          ? dock.BBSSignature.encodePositiveNumberForSigning(m.value as number)
          : dock.BBSSignature.encodeMessageForSigningConstantTime(utf8(m.value as string)),
      )
      assert.equal(
        new dock.BBSSignature(signature).verify(encoded, new dock.BBSPublicKey(keys.publicKey), params, false).verified,
        true,
      )
      const altered = messages.map((m, i) =>
        i === count - 1 ? { ...m, value: m.encoding === 'integer' ? (m.value as number) + 1 : `${m.value}!` } : m,
      )
      assert.equal(
        core.verify(keys.publicKey, LABEL, altered, signature),
        false,
        `count ${count}, last message altered`,
      )
    }
    const messages = messagesOf(13)
    const signature = core.sign(keys.secretKey, LABEL, messages)
    assert.equal(core.verify(core.generateKeyPair(LABEL).publicKey, LABEL, messages, signature), false, 'another key')
    assert.equal(core.verify(keys.publicKey, `${LABEL}/other`, messages, signature), false, 'another label')
    assert.equal(core.verify(keys.publicKey, LABEL, messages, signature.slice(0, 79)), false, 'truncated signature')
    // Randomised signatures: two of the same messages differ and both verify.
    assert.notDeepEqual(core.sign(keys.secretKey, LABEL, messages), signature)
  })

  it('refuses bad secret keys and messages with a RangeError', () => {
    assert.throws(() => core.sign(new Uint8Array(31), LABEL, messagesOf(2)), RangeError)
    assert.throws(() => core.sign(keys.secretKey, LABEL, []), RangeError)
    assert.throws(() => core.sign(keys.secretKey, LABEL, [{ name: 'n', encoding: 'integer', value: -1 }]), RangeError)
  })

  it('refuses to derive from a signature that does not match, before proving', () => {
    const messages = messagesOf(9)
    const signature = core.sign(keys.secretKey, LABEL, messages)
    const request = {
      publicKey: keys.publicKey,
      paramsLabel: LABEL,
      messages,
      signature,
      reveal: [0],
      bounds: [],
      nonce: utf8('n'),
    }
    const proof = core.deriveProof(request)
    assert.equal(core.verifyProof({ ...proof, publicKey: keys.publicKey, paramsLabel: LABEL, nonce: utf8('n') }), true)
    const other = messages.map((m, i) => (i === 3 ? { ...m, value: (m.value as number) + 1 } : m))
    const stranger = core.generateKeyPair(LABEL).publicKey
    for (const bad of [
      { messages: other },
      { publicKey: stranger },
      { paramsLabel: `${LABEL}/other` },
      { signature: signature.map((b, i) => (i === 50 ? b ^ 1 : b)) },
    ]) {
      assert.throws(
        () => core.deriveProof({ ...request, ...bad }),
        /the signature does not match these messages and key/,
        JSON.stringify(Object.keys(bad)),
      )
    }
  })
})
