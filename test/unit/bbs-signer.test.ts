/**
 * The fixed-base BBS signer (bbs-signer.ts) against the library it replaces for signing: every
 * signature it makes must verify with @docknetwork/crypto-wasm-ts's own verification and proofs,
 * for message counts the schemas use, text and integer messages alike, and must stop verifying
 * when anything signed changes.
 */
import assert from 'node:assert/strict'
import { randomBytes, randomInt } from 'node:crypto'
import { before, describe, it } from 'node:test'
import dock from '@docknetwork/crypto-wasm-ts'
import { deriveProof, generateKeyPair, initBbs, sign, signInWasm, verify, verifyProof } from '../../src/crypto/bbs/bbs-core.js'
import type { BbsMessage } from '../../src/crypto/bbs/bbs-messages.js'
import { PrecomputedBbsSigner } from '../../src/crypto/bbs/bbs-signer.js'

const randomMessages = (count: number): BbsMessage[] =>
  Array.from({ length: count }, (_, i): BbsMessage => (i % 3 === 2 ? { name: `n${i}`, encoding: 'integer', value: randomInt(0, 2 ** 47) } : { name: `t${i}`, encoding: 'text', value: randomBytes(12).toString('base64') }))

const generatorsOf = (label: string, count: number) => dock.BBSSignatureParams.generate(count, new TextEncoder().encode(label)).value as { g1: Uint8Array; h: Uint8Array[] }
const encodeAll = (messages: BbsMessage[]) =>
  messages.map((m) => (m.encoding === 'integer' ? dock.BBSSignature.encodePositiveNumberForSigning(m.value as number) : dock.BBSSignature.encodeMessageForSigningConstantTime(new TextEncoder().encode(m.value as string))))

describe('fixed-base BBS signer', () => {
  before(() => initBbs())

  it('makes signatures the library verifies, for 1 to 40 messages, and each altered message fails', () => {
    const label = `test/bbs-signer/${randomBytes(4).toString('hex')}`
    const keys = generateKeyPair(label)
    // Past the library's warm-up signatures (see the next test), so the tables sign below.
    for (let i = 0; i < 4; i++) sign(keys.secretKey, label, randomMessages(1))
    // A short set first, then longer ones under the same label: the tables grow in place.
    for (const count of [1, 3, 13, 20, 40]) {
      const messages = randomMessages(count)
      const signature = sign(keys.secretKey, label, messages)
      assert.equal(signature.length, 80)
      assert.ok(verify(keys.publicKey, label, messages, signature), `${count} messages`)
      const changed = structuredClone(messages)
      const at = randomInt(0, count)
      changed[at] = changed[at]!.encoding === 'integer' ? { ...changed[at]!, value: (changed[at]!.value as number) + 1 } : { ...changed[at]!, value: `${changed[at]!.value}!` }
      assert.equal(verify(keys.publicKey, label, changed, signature), false, `altered message ${at} of ${count}`)
    }
  })

  it('is bound to the key and the params label, like the library signature', () => {
    const label = 'test/bbs-signer/binding'
    const keys = generateKeyPair(label)
    const other = generateKeyPair(label)
    const messages = randomMessages(13)
    for (let i = 0; i < 4; i++) sign(keys.secretKey, label, messages)
    const fast = sign(keys.secretKey, label, messages)
    const reference = signInWasm(keys.secretKey, label, messages)
    for (const signature of [fast, reference]) {
      assert.ok(verify(keys.publicKey, label, messages, signature))
      assert.equal(verify(other.publicKey, label, messages, signature), false)
      assert.equal(verify(keys.publicKey, `${label}/other`, messages, signature), false)
    }
    // e is fresh randomness: two signatures over the same messages differ.
    assert.notDeepEqual(sign(keys.secretKey, label, messages), fast)
  })

  it('yields signatures the library derives selective-disclosure proofs from', () => {
    const label = 'test/bbs-signer/proofs'
    const keys = generateKeyPair(label)
    const messages = randomMessages(8)
    for (let i = 0; i < 4; i++) sign(keys.secretKey, label, messages)
    const signature = sign(keys.secretKey, label, messages)
    const nonce = randomBytes(16)
    const derived = deriveProof({ publicKey: keys.publicKey, paramsLabel: label, messages, signature, reveal: [0, 4], bounds: [], nonce })
    assert.ok(verifyProof({ ...derived, publicKey: keys.publicKey, paramsLabel: label, nonce }))
    assert.equal(verifyProof({ ...derived, publicKey: keys.publicKey, paramsLabel: label, nonce: randomBytes(16) }), false)
  })

  it('leaves an issuer\'s first signatures to the library, then builds its tables once', () => {
    let built = 0
    const label = 'test/bbs-signer/warm-up'
    const keys = generateKeyPair(label)
    const messages = randomMessages(3)
    const signer = new PrecomputedBbsSigner({
      generators: (l, count) => {
        built++
        // What bbs-core passes: the library's generators for this label.
        return { g1: generatorsOf(l, count).g1, h: generatorsOf(l, count).h }
      },
    })
    const encoded = encodeAll(messages)
    const answers = Array.from({ length: 6 }, () => signer.sign(keys.secretKey, label, encoded))
    assert.deepEqual(answers.map((a) => a === undefined), [true, true, true, false, false, false])
    assert.equal(built, 1)
    for (const signature of answers.slice(3)) assert.ok(verify(keys.publicKey, label, messages, signature!))
  })

  it('refuses keys and messages that are not canonical scalars instead of reducing them', () => {
    const signer = new PrecomputedBbsSigner({ generators: () => assert.fail('no generators needed') })
    const order = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n
    const le = (n: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn))
    assert.throws(() => signer.sign(le(0n), 'x', [le(1n)]), /zero/)
    assert.throws(() => signer.sign(le(order), 'x', [le(1n)]), /not reduced/)
    assert.throws(() => signer.sign(new Uint8Array(31), 'x', [le(1n)]), /32 bytes/)
    assert.throws(() => sign(new Uint8Array(32).fill(1), 'x', []), /no messages/)
  })
})
