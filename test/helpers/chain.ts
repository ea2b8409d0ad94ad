import { createPublicClient, createWalletClient, defineChain, http, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { deployRegistries, type Deployment } from '../../src/adapters/chain/deploy.js'
import { startDevChain, type DevChain } from '../../scripts/lib/dev-chain.js'

/** A fresh dev chain on a free port with the registries deployed (one per test file). */
export async function startChainWithRegistries(): Promise<{ chain: DevChain; deployment: Deployment }> {
  const chain = await startDevChain({ port: 0 })
  try {
    const deployment = await deployRegistries({ rpcUrl: chain.url, privateKey: chain.privateKeys[0]! })
    return { chain, deployment }
  } catch (error) {
    await chain.stop()
    throw error
  }
}

/** viem clients for one dev account, independent of the service's chain client. */
export function viemClients(chain: DevChain, keyIndex: number) {
  const transport = http(chain.url, { retryCount: 0 })
  const viemChain = defineChain({
    id: chain.chainId,
    name: 'dev',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.url] } },
  })
  const account = privateKeyToAccount(chain.privateKeys[keyIndex] as Hex)
  return {
    account,
    publicClient: createPublicClient({ chain: viemChain, transport }),
    wallet: createWalletClient({ account, chain: viemChain, transport }),
  }
}

/** The service's configuration for a deployment on a dev chain. */
export function chainEnv(
  chain: DevChain,
  deployment: Deployment,
  keyIndex = 0,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    BLOCKCHAIN_RPC_URL: chain.url,
    BLOCKCHAIN_PRIVATE_KEY: chain.privateKeys[keyIndex]!,
    BLOCKCHAIN_CREDENTIAL_REGISTRY: deployment.contracts.credentialRegistry,
    BLOCKCHAIN_SCHEMA_REGISTRY: deployment.contracts.schemaRegistry,
    BLOCKCHAIN_CONSENT_REGISTRY: deployment.contracts.consentRegistry,
    ...extra,
  }
}

/** Polls `check`; the limit only ends a wait for something that never comes (a loaded machine is slow, not wrong). */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
