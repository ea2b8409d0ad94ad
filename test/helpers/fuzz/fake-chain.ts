import { randomBytes } from 'node:crypto'
import type { Address, Hex } from 'viem'
import type { ChainClient, ChainReceipt } from '../../../src/adapters/chain/chain-client.js'
import { batchLeaf } from '../../../src/modules/blockchain/merkle.js'

const ZERO32 = `0x${'00'.repeat(32)}` as Hex
const address = (byte: string) => `0x${byte.repeat(20)}` as Address

/**
 * An in-memory chain that mines every transaction at once and knows no registry entries: the
 * blockchain routes run their real code (hash parsing, keys, the outbox) with no node to reach.
 */
export function fakeChain(): ChainClient {
  const receipt: ChainReceipt = { status: 'success', blockNumber: 1n, gasUsed: 21_000n }
  return {
    account: address('11'),
    contracts: { credentialRegistry: address('22'), schemaRegistry: address('33'), consentRegistry: address('44') },
    chainId: async () => 31337,
    blockNumber: async () => 1n,
    write: async () => `0x${randomBytes(32).toString('hex')}` as Hex,
    receipt: async () => receipt,
    credentialStatus: async () => ({ registeredAt: 0n, revokedAt: 0n }),
    batchedStatus: async () => ({ anchoredAt: 0n, revokedAt: 0n }),
    credentialLeaf: async (issuer, credentialHash) => batchLeaf([issuer, credentialHash]),
    schema: async () => ({ issuer: ZERO32, latestHash: ZERO32, registeredAt: 0n, versions: 0 }),
    schemaVersionAt: async () => 0n,
    consent: async () => ({ valid: false, grantedAt: 0n, expiresAt: 0n, revokedAt: 0n }),
  }
}
