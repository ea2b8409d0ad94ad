import type { ChainJob, CredentialLeaf } from './chain-outbox.repository.js'
import { LEAF_ENCODING, STANDARD_FORMAT, verifyInclusion, type BatchValue, type Hex32 } from './merkle.js'
import { isV1Batch, V1_FORMAT, verifyV1Inclusion } from './merkle-v1.js'

/**
 * A batched credential's inclusion proof as the check route returns it (docs/blockchain.md
 * "Checking an inclusion"): for the standard format, StandardMerkleTree.verify(root,
 * leaf_encoding, value, proof) and the registry's verifyInclusion(root, ...value, proof) hold.
 */
export interface MerkleView {
  format: typeof STANDARD_FORMAT | typeof V1_FORMAT
  root: string
  leaf: string
  leaf_index: number
  batch_size: number
  /** Only for the standard format: a version-1 leaf is no ABI encoding. */
  leaf_encoding?: string[]
  value: BatchValue
  proof: string[]
}

export function merkleView(leaf: CredentialLeaf, batch: ChainJob, value: BatchValue): MerkleView | null {
  if (!leaf.proof || leaf.leaf_index === null) return null
  const common = {
    root: String(batch.payload.root),
    leaf: leaf.leaf,
    leaf_index: leaf.leaf_index,
    batch_size: Number(batch.payload.size),
  }
  if (isV1Batch(batch.payload)) return { format: V1_FORMAT, ...common, value, proof: leaf.proof }
  return { format: STANDARD_FORMAT, ...common, leaf_encoding: [...LEAF_ENCODING], value, proof: leaf.proof }
}

/** The stored proof checked off chain with the tree of its batch's format. */
export function storedProofHolds(view: MerkleView): boolean {
  const verify = view.format === V1_FORMAT ? verifyV1Inclusion : verifyInclusion
  return verify(view.root as Hex32, view.value, view.proof as Hex32[])
}
