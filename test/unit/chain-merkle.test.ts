import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { StandardMerkleTree } from '@openzeppelin/merkle-tree'
import { concat, keccak256, type Address } from 'viem'
import type { ChainClient, ChainContracts } from '../../src/adapters/chain/chain-client.js'
import {
  batchLeaf,
  buildBatchTree,
  verifyInclusion,
  type BatchValue,
  type Hex32,
} from '../../src/modules/blockchain/merkle.js'
import { batchRegistry, isV1Batch, verifyV1Inclusion } from '../../src/modules/blockchain/merkle-v1.js'
import { createRegistryCheck } from '../../src/modules/blockchain/registry-check.js'
import { consentKey, normalizeHash } from '../../src/modules/blockchain/chain-keys.js'

const h = (): Hex32 => `0x${randomBytes(32).toString('hex')}`
const value = (): BatchValue => [h(), h()]
const ENCODING = ['bytes32', 'bytes32']

describe('batch Merkle tree (OpenZeppelin StandardMerkleTree)', () => {
  it('root, leaves and proofs are what StandardMerkleTree computes from the same values, for 1 to 33 values and 1,000', () => {
    for (const n of [...Array.from({ length: 33 }, (_, i) => i + 1), 1000]) {
      const values = Array.from({ length: n }, value)
      const tree = buildBatchTree(values)
      const reference = StandardMerkleTree.of(values, ENCODING)
      assert.equal(tree.format, 'standard-v1')
      assert.equal(tree.root, reference.root, `n=${n}`)
      values.forEach((v, i) => assert.equal(tree.leaves[i], reference.leafHash(v)))
      // Every proof of the small trees; a spread of the large one (the reference is slow).
      const sample = n <= 33 ? values.keys() : [0, 1, 2, 499, 500, 511, 512, 998, 999]
      for (const i of sample) {
        assert.deepEqual(tree.proofs[i], reference.getProof(i), `n=${n} i=${i}`)
        assert.ok(StandardMerkleTree.verify(tree.root, ENCODING, values[i]!, tree.proofs[i]!))
      }
    }
  })

  it("the leaf queued with a credential is StandardMerkleTree's leaf of its value", () => {
    for (let i = 0; i < 20; i++) {
      const v = value()
      assert.equal(batchLeaf(v), StandardMerkleTree.of([v], ENCODING).leafHash(v))
    }
  })

  it('a changed value, a foreign proof or a swapped value does not verify', () => {
    const values = Array.from({ length: 8 }, value)
    const tree = buildBatchTree(values)
    assert.equal(verifyInclusion(tree.root, values[0]!, tree.proofs[0]!), true)
    assert.equal(verifyInclusion(tree.root, value(), tree.proofs[0]!), false)
    assert.equal(verifyInclusion(tree.root, values[0]!, tree.proofs[1]!), false)
    assert.equal(verifyInclusion(tree.root, [values[0]![1], values[0]![0]], tree.proofs[0]!), false)
  })

  it('rejects an empty batch', () => {
    assert.throws(() => buildBatchTree([]))
  })
})

describe('version-1 batches (read-only)', () => {
  // A three-leaf version-1 tree built here from its definition (docs/blockchain.md).
  const leafV1 = (v: BatchValue) => keccak256(concat(['0x00', v[0], v[1]]))
  const nodeV1 = (a: Hex32, b: Hex32) => keccak256(concat(a <= b ? ['0x01', a, b] : ['0x01', b, a]))

  it('stored proofs of a version-1 tree still verify; wrong ones do not', () => {
    const values = [value(), value(), value()]
    const [l0, l1, l2] = values.map(leafV1) as [Hex32, Hex32, Hex32]
    const n01 = nodeV1(l0, l1)
    const root = nodeV1(n01, l2)
    assert.equal(verifyV1Inclusion(root, values[0]!, [l1, l2]), true)
    assert.equal(verifyV1Inclusion(root, values[1]!, [l0, l2]), true)
    // The odd last leaf moved up unchanged: its proof is the one node beside it.
    assert.equal(verifyV1Inclusion(root, values[2]!, [n01]), true)
    assert.equal(verifyV1Inclusion(root.toUpperCase().replace('0X', '0x') as Hex32, values[2]!, [n01]), true)
    assert.equal(verifyV1Inclusion(root, values[2]!, [l0, l1]), false)
    assert.equal(verifyV1Inclusion(root, value(), [l1, l2]), false)
    // A version-1 proof is no standard proof, and the other way round.
    assert.equal(verifyInclusion(root, values[0]!, [l1, l2]), false)
  })

  it('batches stored without a tree format are version 1 and live in the version-1 registry once configured', () => {
    const contracts: ChainContracts = {
      credentialRegistry: addr('aa'),
      schemaRegistry: addr('bb'),
      consentRegistry: addr('cc'),
    }
    assert.equal(isV1Batch({ root: h(), size: 3 }), true)
    assert.equal(isV1Batch({ root: h(), size: 3, tree: 'standard-v1' }), false)
    assert.equal(
      batchRegistry(contracts, { root: h(), size: 3 }),
      contracts.credentialRegistry,
      'not upgraded yet: the one registry',
    )
    const upgraded = { ...contracts, credentialRegistryV1: addr('dd') }
    assert.equal(batchRegistry(upgraded, { root: h(), size: 3 }), upgraded.credentialRegistryV1)
    assert.equal(batchRegistry(upgraded, { root: h(), size: 3, tree: 'standard-v1' }), upgraded.credentialRegistry)
  })
})

describe('registry check before anchoring standard batches', () => {
  const client = (leaf: (v: BatchValue) => Promise<Hex32>) =>
    ({
      contracts: { credentialRegistry: addr('aa') },
      credentialLeaf: (a: Hex32, b: Hex32) => leaf([a, b]),
    }) as unknown as ChainClient

  it('holds a registry that hashes leaves the version-1 way, reports it once, and passes one that hashes them as the tree does', async () => {
    const reports: string[] = []
    const v1 = createRegistryCheck(
      client(async (v) => keccak256(concat(['0x00', v[0], v[1]]))),
      (r) => void reports.push(r),
    )
    assert.equal(await v1(), false)
    assert.equal(await v1(), false)
    assert.deepEqual(reports, [addr('aa') as string])
    const standard = createRegistryCheck(
      client(async (v) => batchLeaf(v)),
      (r) => void reports.push(r),
    )
    assert.equal(await standard(), true)
    assert.equal(reports.length, 1)
  })

  it('an unreachable chain is no verdict: asked again next time', async () => {
    let up = false
    const reports: string[] = []
    const check = createRegistryCheck(
      client(async (v) => (up ? batchLeaf(v) : Promise.reject(new Error('down')))),
      (r) => void reports.push(r),
    )
    assert.equal(await check(), false)
    up = true
    assert.equal(await check(), true)
    assert.deepEqual(reports, [])
  })
})

describe('chain keys', () => {
  it('credential hashes are normalised to lower-case hex without 0x', () => {
    const hex = 'AB'.repeat(32)
    assert.equal(normalizeHash(`0x${hex}`), hex.toLowerCase())
    assert.throws(() => normalizeHash('abc'), /64 hex/)
  })

  it('consent keys depend on the pepper and on every part of the triple', () => {
    const triple = { holderDid: 'did:example:holder', verifierDid: 'did:example:verifier', purpose: 'kyc' }
    const pepper = randomBytes(32)
    const a = consentKey(pepper, triple)
    assert.deepEqual(consentKey(pepper, triple), a)
    assert.notEqual(consentKey(randomBytes(32), triple).key, a.key)
    assert.notEqual(consentKey(pepper, { ...triple, purpose: 'kyc2' }).key, a.key)
    assert.notEqual(consentKey(pepper, { ...triple, verifierDid: 'did:example:other' }).key, a.key)
  })
})

function addr(byte: string): Address {
  return `0x${byte.repeat(20)}`
}
