import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { buildTree, leafOf, processProof, verifyProof, type Hex32 } from '../../src/modules/blockchain/merkle.js'
import { consentKey, normalizeHash } from '../../src/modules/blockchain/chain-keys.js'

const h = (): Hex32 => `0x${randomBytes(32).toString('hex')}`

describe('batch Merkle tree', () => {
  it('every leaf of trees of 1 to 33 leaves proves into the root; proofs are at most ceil(log2 n) long', () => {
    for (let n = 1; n <= 33; n++) {
      const leaves = Array.from({ length: n }, () => leafOf(h(), h()))
      const tree = buildTree(leaves)
      if (n === 1) assert.equal(tree.root, leaves[0])
      leaves.forEach((leaf, i) => {
        assert.ok(verifyProof(leaf, tree.proofs[i]!, tree.root), `n=${n} i=${i}`)
        assert.ok(tree.proofs[i]!.length <= Math.ceil(Math.log2(n)))
      })
    }
  })

  it('a changed leaf, a foreign proof or an inner node posing as a leaf does not verify', () => {
    const leaves = Array.from({ length: 8 }, () => leafOf(h(), h()))
    const tree = buildTree(leaves)
    assert.equal(verifyProof(leafOf(h(), h()), tree.proofs[0]!, tree.root), false)
    assert.equal(verifyProof(leaves[0]!, tree.proofs[1]!, tree.root), false)
    // The parent of leaves 0 and 1 with the rest of leaf 0's proof reaches the root...
    const parent = processProof(leaves[0]!, tree.proofs[0]!.slice(0, 1))
    assert.equal(processProof(parent, tree.proofs[0]!.slice(1)), tree.root)
    // ...but no (issuer, hash) pair has it as its leaf: leaves are 0x00-prefixed, inner nodes 0x01.
    assert.notEqual(leafOf(parent, parent), parent)
  })

  it('rejects an empty batch', () => {
    assert.throws(() => buildTree([]))
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
