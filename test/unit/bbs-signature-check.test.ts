import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { before, describe, it } from 'node:test'
import dock from '@docknetwork/crypto-wasm-ts'
import { bls12_381 } from '@noble/curves/bls12-381.js'
import * as core from '../../src/crypto/bbs/bbs-core.js'
import type { BbsMessage } from '../../src/crypto/bbs/bbs-messages.js'
import { checkBbsSignature, type SignatureParamsBytes } from '../../src/crypto/bbs/bbs-signature-check.js'

const { BBSSignature, BBSSignatureParams } = dock
const utf8 = (text: string) => new TextEncoder().encode(text)

/** The library's own encoding of each message: the reference the check must agree with. */
const encoded = (messages: BbsMessage[]) =>
  messages.map((m) => (m.encoding === 'integer' ? BBSSignature.encodePositiveNumberForSigning(m.value as number) : BBSSignature.encodeMessageForSigningConstantTime(utf8(m.value as string))))
const paramsOf = (label: string, count: number) => () => BBSSignatureParams.generate(count, utf8(label)).value as SignatureParamsBytes
const randomMessages = (count: number): BbsMessage[] =>
  Array.from({ length: count }, (_, i) => (i % 3 === 0 ? { name: `n${i}`, encoding: 'integer', value: Math.floor(Math.random() * 2 ** 50) } : { name: `t${i}`, encoding: 'text', value: randomBytes(8).toString('hex') }))

describe('BBS signature check with mcl (before deriving a proof), held to the library', () => {
  before(() => core.initBbs())

  it('agrees with the library on valid signatures, ours and the library\'s, for many message counts', () => {
    const label = `test/sig-check/${randomBytes(4).toString('hex')}`
    const keys = core.generateKeyPair(label)
    // Counts out of order: generators decoded for 3 must extend to 20 for the same label.
    for (const count of [3, 1, 13, 20, 5]) {
      const messages = randomMessages(count)
      for (const signature of [core.sign(keys.secretKey, label, messages), core.signInWasm(keys.secretKey, label, messages)]) {
        assert.equal(core.verify(keys.publicKey, label, messages, signature), true)
        assert.equal(checkBbsSignature(label, paramsOf(label, count), keys.publicKey, encoded(messages), signature), true, `count ${count}`)
      }
    }
  })

  it('agrees with the library on every refusal: other message, key, label, e, A, and malformed bytes', () => {
    const label = `test/sig-check/${randomBytes(4).toString('hex')}`
    const keys = core.generateKeyPair(label)
    const other = core.generateKeyPair(label)
    const messages = randomMessages(13)
    const signature = core.signInWasm(keys.secretKey, label, messages)
    const r = bls12_381.fields.Fr.ORDER
    const withE = (e: bigint) => {
      const out = signature.slice()
      for (let i = 0; i < 32; i++) out[48 + i] = Number((e >> BigInt(8 * i)) & 0xffn)
      return out
    }
    const e = [...signature.subarray(48)].reverse().reduce((v, b) => (v << 8n) | BigInt(b), 0n)
    const otherA = signature.slice()
    otherA.set(bls12_381.G1.Point.BASE.multiply(12345n).toBytes(true), 0)
    const identityA = signature.slice()
    identityA.set([0xc0, ...new Uint8Array(47)], 0)
    const changed = messages.map((m, i) => (i === 4 ? { ...m, value: `${String(m.value)}x` } : m))
    const cases: Array<[string, { publicKey?: Uint8Array; label?: string; messages?: BbsMessage[]; signature?: Uint8Array }]> = [
      ['another message', { messages: changed }],
      ['another key', { publicKey: other.publicKey }],
      ['another params label', { label: `${label}/other` }],
      ['e + 1', { signature: withE((e + 1n) % r) }],
      ['A from elsewhere', { signature: otherA }],
    ]
    for (const [name, change] of cases) {
      const use = { publicKey: keys.publicKey, label, messages, signature, ...change }
      assert.equal(core.verify(use.publicKey, use.label, use.messages, use.signature), false, `library: ${name}`)
      assert.equal(checkBbsSignature(use.label, paramsOf(use.label, use.messages.length), use.publicKey, encoded(use.messages), use.signature), false, name)
    }
    // What the library cannot even decode: the check says false, never throws.
    for (const [name, bytes] of [['e not below r', withE(e + r)], ['A the identity', identityA], ['too short', signature.subarray(0, 79)]] as const) {
      assert.equal(checkBbsSignature(label, paramsOf(label, 13), keys.publicKey, encoded(messages), bytes), false, name)
    }
    assert.equal(checkBbsSignature(label, paramsOf(label, 13), new Uint8Array(96), encoded(messages), signature), false, 'public key of zeros')
  })

  it('derive refuses a stored signature that does not match, before proving', () => {
    const label = `test/sig-check/${randomBytes(4).toString('hex')}`
    const keys = core.generateKeyPair(label)
    const messages = randomMessages(9)
    const signature = core.sign(keys.secretKey, label, messages)
    const derive = (publicKey: Uint8Array) => core.deriveProof({ publicKey, paramsLabel: label, messages, signature, reveal: [1], bounds: [], nonce: utf8('n') })
    assert.ok(core.verifyProof({ ...derive(keys.publicKey), publicKey: keys.publicKey, paramsLabel: label, nonce: utf8('n') }))
    assert.throws(() => derive(core.generateKeyPair(label).publicKey), /the signature does not match/)
  })
})
