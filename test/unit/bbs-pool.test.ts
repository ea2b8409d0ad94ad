import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { bbsVerificationMethodFields, decodeBbsVerificationMethod } from '../../src/crypto/bbs/bbs-key-text.js'
import {
  credentialMessages,
  ENCODED_RANGE,
  encodeIntegerValue,
  messageIndex,
  type AnonCredentialContent,
} from '../../src/crypto/bbs/bbs-messages.js'
import { createBbsPool } from '../../src/crypto/bbs/bbs-pool.js'
import { base58btc } from 'multiformats/bases/base58'

const content: AnonCredentialContent = {
  meta: {
    id: 'aly:2',
    type: 'Membership',
    issuer: 'did:example:club',
    subject: 'did:example:member',
    schema_id: 'schema-2',
    issued_at: '2026-11-22T12:00:00.000Z',
  },
  attributes: { name: 'Ada', age: 30, since: '2020-05-01', country: 'NL', level: 'gold', score: -2.5 },
  types: {
    name: 'string',
    age: 'number',
    since: 'date',
    country: 'string',
    level: 'string',
    score: 'number',
    nickname: 'string',
  },
}
const LABEL = 'test/bbs-params/did:example:club'
const utf8 = (s: string) => new TextEncoder().encode(s)

describe('BBS worker pool', () => {
  const issuerPool = createBbsPool({ size: 2 })
  // A separate pool stands for an outside verifier: its workers rebuild the params from the label.
  const verifierPool = createBbsPool({ size: 1 })
  after(async () => {
    await issuerPool.close()
    await verifierPool.close()
  })
  const issued = (async () => {
    const keys = await issuerPool.generateKeyPair(LABEL)
    const messages = credentialMessages(content)
    return {
      ...keys,
      messages,
      signature: await issuerPool.sign({ secretKey: keys.secretKey, paramsLabel: LABEL, messages }),
    }
  })()

  it('generates distinct key pairs of the published sizes', async () => {
    const [a, b] = await Promise.all([issuerPool.generateKeyPair(LABEL), issuerPool.generateKeyPair(LABEL)])
    assert.equal(a.publicKey.length, 96) // compressed BLS12-381 G2 point
    assert.equal(a.secretKey.length, 32)
    assert.notDeepEqual(a.publicKey, b.publicKey)
    assert.notDeepEqual(a.secretKey, b.secretKey)
  })

  it('signs, and an outsider verifies from the DID-document method alone', async () => {
    const { publicKey, messages, signature } = await issued
    assert.equal(signature.length, 80)
    const method = JSON.parse(JSON.stringify(bbsVerificationMethodFields(publicKey, LABEL))) as Record<string, unknown>
    // Multikey: base58btc ('z') of the bls12_381-g2-pub multicodec (0xeb 0x01) and the key. The
    // encoded text starts "zUC7" for most keys, "zUC6" for some: the bytes are what is fixed.
    const multibase = method.publicKeyMultibase as string
    assert.equal(multibase[0], 'z')
    assert.deepEqual(base58btc.baseDecode(multibase.slice(1)), Uint8Array.of(0xeb, 0x01, ...publicKey))
    const published = decodeBbsVerificationMethod(method)
    assert.ok(published)
    assert.equal(
      await verifierPool.verify({
        publicKey: published.publicKey,
        paramsLabel: published.paramsLabel,
        messages,
        signature,
      }),
      true,
    )
  })

  it('refuses a changed attribute, meta message, params label or key', async () => {
    const { publicKey, messages, signature } = await issued
    const variants = [
      credentialMessages({ ...content, attributes: { ...content.attributes, age: 31 } }),
      credentialMessages({ ...content, attributes: { ...content.attributes, nickname: 'A' } }),
      credentialMessages({ ...content, meta: { ...content.meta, subject: 'did:example:thief' } }),
      credentialMessages({ ...content, meta: { ...content.meta, expires_at: '2030-01-01T00:00:00Z' } }),
    ]
    const stranger = await issuerPool.generateKeyPair(LABEL)
    const results = await Promise.all([
      ...variants.map((changed) =>
        verifierPool.verify({ publicKey, paramsLabel: LABEL, messages: changed, signature }),
      ),
      verifierPool.verify({ publicKey, paramsLabel: `${LABEL}-other`, messages, signature }),
      verifierPool.verify({ publicKey: stranger.publicKey, paramsLabel: LABEL, messages, signature }),
      verifierPool.verify({ publicKey: new Uint8Array(96), paramsLabel: LABEL, messages, signature }),
    ])
    assert.deepEqual(
      results,
      results.map(() => false),
    )
  })

  it('proves two revealed attributes and age >= 18 to an outsider, bound to the nonce', async () => {
    const { publicKey, messages, signature } = await issued
    const reveal = [messageIndex(content, 'name'), messageIndex(content, 'country')]
    const age = messageIndex(content, 'age')
    const bounds = [
      { index: age, min: encodeIntegerValue('number', 18), maxExclusive: ENCODED_RANGE.number.maxExclusive },
    ]
    const nonce = utf8('verifier-nonce-1')
    const derived = await issuerPool.deriveProof({
      publicKey,
      paramsLabel: LABEL,
      messages,
      signature,
      reveal,
      bounds,
      nonce,
    })
    // Only the two chosen attributes travel with the proof: not the age, nor anything else.
    assert.deepEqual(new Set(derived.revealed.map((r) => r.message.value)), new Set(['Ada', 'NL']))
    assert.equal(derived.messageCount, messages.length)

    // The verifier has the proof as sent, the issuer's public key and label, and its own nonce.
    const check = { ...structuredClone(derived), publicKey, paramsLabel: LABEL, nonce }
    const [valid, wrongNonce, tampered, strongerClaim] = await Promise.all([
      verifierPool.verifyProof(check),
      verifierPool.verifyProof({ ...check, nonce: utf8('verifier-nonce-2') }),
      verifierPool.verifyProof({
        ...check,
        revealed: check.revealed.map((r) =>
          r.message.value === 'Ada' ? { ...r, message: { ...r.message, value: 'Eve' } } : r,
        ),
      }),
      verifierPool.verifyProof({ ...check, bounds: [{ ...bounds[0]!, min: encodeIntegerValue('number', 40) }] }),
    ])
    assert.deepEqual(
      { valid, wrongNonce, tampered, strongerClaim },
      { valid: true, wrongNonce: false, tampered: false, strongerClaim: false },
    )

    // A predicate that does not hold cannot be proved; the error keeps its class across the thread.
    const impossible = [
      { index: age, min: encodeIntegerValue('number', 40), maxExclusive: ENCODED_RANGE.number.maxExclusive },
    ]
    await assert.rejects(
      issuerPool.deriveProof({ publicKey, paramsLabel: LABEL, messages, signature, reveal, bounds: impossible, nonce }),
      RangeError,
    )
  })

  it('fails only the tasks that fail or crash, replaces dead workers and keeps working', async () => {
    const { secretKey, publicKey, messages } = await issued
    const sign = () => issuerPool.sign({ secretKey, paramsLabel: LABEL, messages })
    const outcomes = await Promise.allSettled([
      issuerPool.selfTest('exit'),
      sign(),
      issuerPool.selfTest('panic'),
      issuerPool.sign({ secretKey: new Uint8Array(3), paramsLabel: LABEL, messages }),
      sign(),
      sign(),
    ])
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled'],
    )
    const reason = (i: number) => (outcomes[i] as PromiseRejectedResult).reason as Error
    assert.match(reason(0).message, /exited/)
    assert.equal(reason(2).name, 'RuntimeError')
    assert.ok(reason(3) instanceof RangeError)
    for (const o of outcomes) {
      if (o.status === 'fulfilled')
        assert.equal(await verifierPool.verify({ publicKey, paramsLabel: LABEL, messages, signature: o.value }), true)
    }
  })

  it('retires a worker after a panic, and rejects running, queued and later work after close', async () => {
    const pool = createBbsPool({ size: 1 })
    const first = await pool.selfTest('threadId')
    await assert.rejects(pool.selfTest('panic'), { name: 'RuntimeError' })
    const next = await pool.selfTest('threadId')
    assert.notEqual(next, first, 'a panicked WASM instance must not run the next task')

    const tasks = [pool.generateKeyPair(LABEL), pool.generateKeyPair(LABEL), pool.generateKeyPair(LABEL)].map((t) =>
      assert.rejects(t, /closed/),
    )
    await pool.close()
    await Promise.all(tasks)
    await assert.rejects(pool.generateKeyPair(LABEL), /closed/)
  })

  it('does not keep the process alive when idle, but finishes work in flight', async () => {
    // A pool that is never closed: the process must print the result and then exit on its own.
    const script = `import { createBbsPool } from ${JSON.stringify(new URL('../../src/crypto/bbs/bbs-pool.ts', import.meta.url).href)}
createBbsPool({ size: 1 }).generateKeyPair('x').then((k) => console.log('public key', k.publicKey.length))`
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { timeout: 30_000 },
    )
    assert.equal(stdout.trim(), 'public key 96')
  })
})
