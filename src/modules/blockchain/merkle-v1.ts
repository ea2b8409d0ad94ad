import { SimpleMerkleTree } from '@openzeppelin/merkle-tree'
import { bytesToHex, concat, keccak256, type Address } from 'viem'
import type { ChainContracts } from '../../adapters/chain/chain-client.js'
import type { BatchValue, Hex32 } from './merkle.js'

type BytesLike = Parameters<typeof SimpleMerkleTree.verify>[0]

/**
 * Batches anchored before the OpenZeppelin tree (version 1, contracts/legacy/
 * CredentialRegistryV1.sol), read-only: nothing builds this tree any more, but its roots stay
 * in the registry that anchored them and their stored proofs must keep checking
 * (docs/decisions.md "Merkle batches on OpenZeppelin").
 *   leaf = keccak256(0x00 ‖ issuer ‖ credentialHash), node = keccak256(0x01 ‖ min(a, b) ‖ max(a, b))
 */
export const V1_FORMAT = 'legacy-v1'

/** Batches were stored without a tree format before the OpenZeppelin tree. */
export const isV1Batch = (payload: Record<string, unknown>): boolean => payload.tree === undefined

/** Where a batch's root lives: a version-1 root in BLOCKCHAIN_CREDENTIAL_REGISTRY_V1 once the registry was upgraded. */
export function batchRegistry(contracts: ChainContracts, payload: Record<string, unknown>): Address {
  return isV1Batch(payload)
    ? (contracts.credentialRegistryV1 ?? contracts.credentialRegistry)
    : contracts.credentialRegistry
}

/** The stored proof folded by OpenZeppelin's SimpleMerkleTree with the version-1 leaf and node hashes. */
export function verifyV1Inclusion(root: Hex32, value: BatchValue, proof: readonly Hex32[]): boolean {
  const leaf = keccak256(concat(['0x00', value[0], value[1]]))
  return SimpleMerkleTree.verify(
    root.toLowerCase(),
    leaf,
    proof.map((p) => p.toLowerCase()),
    v1NodeHash,
  )
}

function v1NodeHash(a: BytesLike, b: BytesLike): Hex32 {
  const [x, y] = [toHex(a), toHex(b)]
  return keccak256(concat(x <= y ? ['0x01', x, y] : ['0x01', y, x]))
}

const toHex = (v: BytesLike): Hex32 =>
  typeof v === 'string' ? (v.toLowerCase() as Hex32) : bytesToHex(Uint8Array.from(v))
