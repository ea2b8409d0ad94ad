import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { generateKemKeyPair, openFromSender } from '../../src/crypto/kem-envelope.js'
import { createKemSealer, INLINE_SEAL_MAX_BYTES, type KemSealer, type SealArgs } from '../../src/crypto/kem-sealer.js'
import { createBbsPool } from '../../src/crypto/bbs/bbs-pool.js'

/** Records what reaches the off-thread sealer; with a pool it seals there, without one it refuses. */
function recordingPool(pool?: KemSealer): KemSealer & { received: SealArgs[] } {
  const received: SealArgs[] = []
  return { received, seal: (req) => (received.push(req), pool ? pool.seal(req) : Promise.reject(new Error('no pool in this test'))) }
}

describe('KEM sealer', () => {
  const recipient = generateKemKeyPair()

  it('seals credential-sized material on this thread; the pure-JS implementation opens it', async () => {
    const offThread = recordingPool()
    const sealer = createKemSealer(offThread)
    const plaintext = new Uint8Array(INLINE_SEAL_MAX_BYTES).fill(7)
    const envelope = await sealer.seal({ publicKey: recipient.publicKey, plaintext, associatedData: 'aly:1' })
    assert.equal(offThread.received.length, 0, 'not handed to the pool')
    assert.deepEqual(openFromSender(recipient.secretKey, envelope, 'aly:1'), plaintext)
    assert.throws(() => openFromSender(recipient.secretKey, envelope, 'aly:2'), 'bound to its associated data')
    // A fresh encapsulation per seal: the same plaintext twice is two different envelopes.
    const again = await sealer.seal({ publicKey: recipient.publicKey, plaintext, associatedData: 'aly:1' })
    assert.notDeepEqual(again, envelope)
  })

  it('hands larger plaintexts to the worker pool, whose envelopes open the same way', async () => {
    const pool = createBbsPool({ size: 1 })
    try {
      const offThread = recordingPool(pool)
      const sealer = createKemSealer(offThread, { inlineMaxBytes: 16 })
      const small = new TextEncoder().encode('{"a":1}')
      const large = new TextEncoder().encode('{"given_name":"Ada","family_name":"Lovelace"}')
      const [a, b] = await Promise.all([
        sealer.seal({ publicKey: recipient.publicKey, plaintext: small, associatedData: 'aly:s' }),
        sealer.seal({ publicKey: recipient.publicKey, plaintext: large, associatedData: 'aly:l' }),
      ])
      assert.deepEqual(offThread.received.map((r) => r.associatedData), ['aly:l'])
      assert.deepEqual(openFromSender(recipient.secretKey, a, 'aly:s'), small)
      assert.deepEqual(openFromSender(recipient.secretKey, b, 'aly:l'), large)
    } finally {
      await pool.close()
    }
  })

  it('refuses a public key that is not an ML-KEM-768 key (1,184 bytes)', async () => {
    const offThread = recordingPool()
    await assert.rejects(createKemSealer(offThread).seal({ publicKey: new Uint8Array(1183), plaintext: new Uint8Array(8), associatedData: 'x' }))
    assert.equal(offThread.received.length, 0, 'refused on this thread, not by the pool')
  })
})
