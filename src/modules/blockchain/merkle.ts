import { StandardMerkleTree } from '@openzeppelin/merkle-tree'
import { encodeAbiParameters, keccak256 } from 'viem'

/**
 * The batch tree of the credential registry: OpenZeppelin's StandardMerkleTree (double-hashed
 * leaves, sorted pairs), which contracts/CredentialRegistry.sol checks with OpenZeppelin's
 * MerkleProof, so anyone checks an inclusion with `StandardMerkleTree.verify` or the contract
 * (docs/blockchain.md "Batches"). Batches built before it: merkle-v1.ts.
 */
export type Hex32 = `0x${string}`

/** The value of a credential in a batch: [keccak256(issuer DID), credential hash]. */
export type BatchValue = [issuer: Hex32, credentialHash: Hex32]

/** StandardMerkleTree's leaf encoding of a BatchValue (abi.encode of two bytes32). */
export const LEAF_ENCODING: readonly string[] = ['bytes32', 'bytes32']

/** The tree format stored with each batch: OpenZeppelin's own name for it. */
export const STANDARD_FORMAT = 'standard-v1' as const

export interface BatchTree {
  format: typeof STANDARD_FORMAT
  root: Hex32
  /** leaves[i], proofs[i]: of values[i], in the order given (the tree itself sorts its leaves). */
  leaves: Hex32[]
  proofs: Hex32[][]
}

export function buildBatchTree(values: readonly BatchValue[]): BatchTree {
  if (values.length === 0) throw new Error('a Merkle tree needs at least one leaf')
  const tree = StandardMerkleTree.of(values.slice(), LEAF_ENCODING.slice())
  // The dump is the library's documented 'standard-v1' layout: each value's leaf sits at its treeIndex.
  const { tree: nodes, values: placed } = tree.dump()
  return {
    format: STANDARD_FORMAT,
    root: tree.root as Hex32,
    leaves: placed.map((p) => nodes[p.treeIndex] as Hex32),
    proofs: values.map((_, i) => tree.getProof(i) as Hex32[]),
  }
}

/**
 * StandardMerkleTree's leaf of one value, keccak256(keccak256(abi.encode(value))), as the
 * registry's `leaf` computes it. With viem's ABI encoder: this runs once per issued credential,
 * and the tree library's encoder is the slower one (chain-merkle test pins the two together).
 */
export function batchLeaf(value: BatchValue): Hex32 {
  return keccak256(keccak256(encodeAbiParameters(LEAF_PARAMETERS, value)))
}

const LEAF_PARAMETERS = [{ type: 'bytes32' }, { type: 'bytes32' }] as const

export function verifyInclusion(root: Hex32, value: BatchValue, proof: readonly Hex32[]): boolean {
  return StandardMerkleTree.verify(root.toLowerCase(), LEAF_ENCODING.slice(), value, proof.slice())
}
