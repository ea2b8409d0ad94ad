import { keccak_256 } from '@noble/hashes/sha3.js'
import { concatBytes } from '../../crypto/encoding.js'

/**
 * The batch tree of the credential registry (contracts/CredentialRegistry.sol `leaf` and
 * `processProof`; docs/blockchain.md "Batches"):
 *   leaf = keccak256(0x00 ‖ issuer ‖ credentialHash)
 *   node = keccak256(0x01 ‖ min(a, b) ‖ max(a, b))
 * Pairs are hashed in sorted order, so a proof is the list of siblings alone. A node without a
 * sibling at the end of an odd level moves up unchanged. The prefixes keep leaves and inner
 * nodes apart (a 65-byte inner preimage can never be read as a leaf).
 */
export type Hex32 = `0x${string}`

export function leafOf(issuer: Hex32, credentialHash: Hex32): Hex32 {
  return toHex(keccak_256(concatBytes([Uint8Array.of(0), fromHex(issuer), fromHex(credentialHash)])))
}

export interface MerkleTree {
  root: Hex32
  /** proofs[i]: siblings from leaf i up to the root. */
  proofs: Hex32[][]
}

export function buildTree(leaves: readonly Hex32[]): MerkleTree {
  if (leaves.length === 0) throw new Error('a Merkle tree needs at least one leaf')
  let level = leaves.map(fromHex)
  // Which node of the current level each leaf has become.
  const position = leaves.map((_, i) => i)
  const proofs: Uint8Array[][] = leaves.map(() => [])
  while (level.length > 1) {
    const next: Uint8Array[] = []
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? hashPair(level[i]!, level[i + 1]!) : level[i]!)
    for (let leaf = 0; leaf < leaves.length; leaf++) {
      const at = position[leaf]!
      const sibling = at ^ 1
      if (sibling < level.length) proofs[leaf]!.push(level[sibling]!)
      position[leaf] = at >> 1
    }
    level = next
  }
  return { root: toHex(level[0]!), proofs: proofs.map((p) => p.map(toHex)) }
}

export function processProof(leaf: Hex32, proof: readonly Hex32[]): Hex32 {
  let node = fromHex(leaf)
  for (const sibling of proof) node = hashPair(node, fromHex(sibling))
  return toHex(node)
}

export function verifyProof(leaf: Hex32, proof: readonly Hex32[], root: Hex32): boolean {
  return processProof(leaf, proof) === root.toLowerCase()
}

function hashPair(a: Uint8Array, b: Uint8Array): Uint8Array {
  return keccak_256(concatBytes(compare(a, b) <= 0 ? [Uint8Array.of(1), a, b] : [Uint8Array.of(1), b, a]))
}

function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return 0
}

function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'))
}

function toHex(bytes: Uint8Array): Hex32 {
  return `0x${Buffer.from(bytes).toString('hex')}`
}
