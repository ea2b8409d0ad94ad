import type { ChainClient } from '../../adapters/chain/chain-client.js'
import { batchLeaf, type BatchValue } from './merkle.js'

/**
 * Whether the configured credential registry hashes batch leaves as merkle.ts does
 * (OpenZeppelin's standard leaf). A version-1 registry left in BLOCKCHAIN_CREDENTIAL_REGISTRY
 * after an upgrade would accept new roots and never accept their proofs, so the dispatcher holds
 * new batches back until it is replaced (docs/blockchain.md "Upgrading a deployment"). Asked until it holds.
 */
export function createRegistryCheck(
  client: ChainClient,
  onMismatch: (registry: string) => void,
): () => Promise<boolean> {
  const probe: BatchValue = [`0x${'01'.repeat(32)}`, `0x${'02'.repeat(32)}`]
  let matches = false
  let reported = false
  return async () => {
    if (matches) return true
    // A chain that cannot be reached answers nothing here: the batch waits for the next round.
    const onChain = await client.credentialLeaf(...probe).catch(() => undefined)
    if (onChain === undefined) return false
    matches = onChain.toLowerCase() === batchLeaf(probe)
    if (!matches && !reported) {
      reported = true
      onMismatch(client.contracts.credentialRegistry)
    }
    return matches
  }
}
