import { createPublicClient, createWalletClient, defineChain, http, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { ChainContracts } from './chain-client.js'
import { loadArtifacts, type ContractName } from './contracts-build.js'

/**
 * Compiles contracts/*.sol (solc-js, cached) and deploys the three registries from the given
 * account, one after the other, waiting for each receipt. Used by `npm run chain:deploy`,
 * `npm run chain:dev` and the chain tests.
 */
export interface Deployment {
  chainId: number
  deployer: Address
  contracts: ChainContracts
  /** Gas used by each deployment transaction. */
  gasUsed: Record<ContractName, bigint>
}

export async function deployRegistries(options: { rpcUrl: string; privateKey: Hex }): Promise<Deployment> {
  const artifacts = await loadArtifacts()
  const transport = http(options.rpcUrl, { retryCount: 2 })
  const publicClient = createPublicClient({ transport })
  const chainId = await publicClient.getChainId()
  const chain = defineChain({ id: chainId, name: `chain-${chainId}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [options.rpcUrl] } } })
  const account = privateKeyToAccount(options.privateKey)
  const wallet = createWalletClient({ account, chain, transport })
  const addresses = {} as Record<ContractName, Address>
  const gasUsed = {} as Record<ContractName, bigint>
  for (const name of ['CredentialRegistry', 'SchemaRegistry', 'ConsentRegistry'] as const) {
    const { abi, bytecode } = artifacts[name]
    const hash = await wallet.deployContract({ abi, bytecode })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 250 })
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${name} failed (transaction ${hash})`)
    addresses[name] = receipt.contractAddress
    gasUsed[name] = receipt.gasUsed
  }
  return {
    chainId,
    deployer: account.address,
    contracts: { credentialRegistry: addresses.CredentialRegistry, schemaRegistry: addresses.SchemaRegistry, consentRegistry: addresses.ConsentRegistry },
    gasUsed,
  }
}

/** The environment lines that point the service at a deployment. */
export function deploymentEnv(deployment: Deployment): string {
  return [
    `BLOCKCHAIN_CREDENTIAL_REGISTRY=${deployment.contracts.credentialRegistry}`,
    `BLOCKCHAIN_SCHEMA_REGISTRY=${deployment.contracts.schemaRegistry}`,
    `BLOCKCHAIN_CONSENT_REGISTRY=${deployment.contracts.consentRegistry}`,
  ].join('\n')
}
