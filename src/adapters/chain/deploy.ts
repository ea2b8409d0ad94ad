import { createPublicClient, createWalletClient, defineChain, http, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { ChainContracts } from './chain-client.js'
import { loadArtifacts, type ContractName } from './contracts-build.js'

/**
 * Compiles contracts/*.sol (solc-js, cached) and deploys the three registries from the given
 * account, one after the other, waiting for each receipt. Used by `npm run chain:deploy`,
 * `npm run chain:dev` and the chain tests. `deployCredentialRegistry` alone is the upgrade of an
 * existing deployment (docs/blockchain.md "Upgrading a deployment").
 */
export interface Deployment {
  chainId: number
  deployer: Address
  contracts: ChainContracts
  /** Gas used by each deployment transaction. */
  gasUsed: Record<ContractName, bigint>
}

type DeployOptions = { rpcUrl: string; privateKey: Hex }

export async function deployRegistries(options: DeployOptions): Promise<Deployment> {
  const { chainId, deployer, addresses, gasUsed } = await deploy(options, [
    'CredentialRegistry',
    'SchemaRegistry',
    'ConsentRegistry',
  ])
  return {
    chainId,
    deployer,
    contracts: {
      credentialRegistry: addresses.CredentialRegistry!,
      schemaRegistry: addresses.SchemaRegistry!,
      consentRegistry: addresses.ConsentRegistry!,
    },
    gasUsed: gasUsed as Record<ContractName, bigint>,
  }
}

export async function deployCredentialRegistry(
  options: DeployOptions,
): Promise<{ chainId: number; deployer: Address; address: Address; gasUsed: bigint }> {
  const { chainId, deployer, addresses, gasUsed } = await deploy(options, ['CredentialRegistry'])
  return { chainId, deployer, address: addresses.CredentialRegistry!, gasUsed: gasUsed.CredentialRegistry! }
}

async function deploy(options: DeployOptions, names: ContractName[]) {
  const artifacts = await loadArtifacts()
  const transport = http(options.rpcUrl, { retryCount: 2 })
  const publicClient = createPublicClient({ transport })
  const chainId = await publicClient.getChainId()
  const chain = defineChain({
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  })
  const account = privateKeyToAccount(options.privateKey)
  const wallet = createWalletClient({ account, chain, transport })
  const addresses: Partial<Record<ContractName, Address>> = {}
  const gasUsed: Partial<Record<ContractName, bigint>> = {}
  for (const name of names) {
    const { abi, bytecode } = artifacts[name]
    const hash = await wallet.deployContract({ abi, bytecode })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 250 })
    if (receipt.status !== 'success' || !receipt.contractAddress)
      throw new Error(`deploying ${name} failed (transaction ${hash})`)
    addresses[name] = receipt.contractAddress
    gasUsed[name] = receipt.gasUsed
  }
  return { chainId, deployer: account.address, addresses, gasUsed }
}

/** The environment lines that point the service at a deployment. */
export function deploymentEnv(deployment: Deployment): string {
  return [
    `BLOCKCHAIN_CREDENTIAL_REGISTRY=${deployment.contracts.credentialRegistry}`,
    `BLOCKCHAIN_SCHEMA_REGISTRY=${deployment.contracts.schemaRegistry}`,
    `BLOCKCHAIN_CONSENT_REGISTRY=${deployment.contracts.consentRegistry}`,
  ].join('\n')
}
