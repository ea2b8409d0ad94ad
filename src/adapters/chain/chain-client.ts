import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  TransactionReceiptNotFoundError,
  webSocket,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { consentRegistryAbi, credentialRegistryAbi, schemaRegistryAbi } from './registry-abis.js'

/**
 * The chain as the service sees it: a handful of writes to the three registries, their
 * receipts, and the read calls the check routes make. viem behind a small interface
 * (STYLE.md: every I/O edge is passed in), so the outbox and routes never touch viem types.
 */
export interface ChainContracts {
  credentialRegistry: Address
  schemaRegistry: Address
  consentRegistry: Address
  /** The version-1 credential registry still holding older batch roots, after an upgrade (docs/blockchain.md "Upgrading a deployment"). */
  credentialRegistryV1?: Address
}

export type ChainWrite =
  /** `registry`: the credential registry holding the batch (the current one, or version 1 for its batches). */
  | { fn: 'anchorBatch'; registry: Address; root: Hex; size: number }
  | { fn: 'registerCredential'; issuer: Hex; credentialHash: Hex }
  | { fn: 'revokeCredential'; issuer: Hex; credentialHash: Hex }
  | { fn: 'revokeBatchedCredential'; registry: Address; issuer: Hex; credentialHash: Hex; root: Hex; proof: Hex[] }
  | { fn: 'registerSchema'; schemaId: Hex; issuer: Hex; schemaHash: Hex }
  | { fn: 'grantConsent'; consentKey: Hex; expiresAt: bigint }
  | { fn: 'revokeConsent'; consentKey: Hex }

export interface ChainReceipt {
  status: 'success' | 'reverted'
  blockNumber: bigint
  gasUsed: bigint
}

export interface ChainClient {
  /** The anchoring account: the registrant every record of this service lives under. */
  readonly account: Address
  readonly contracts: ChainContracts
  chainId(): Promise<number>
  blockNumber(): Promise<bigint>
  /** Sends one transaction and returns its hash once the node accepted it (not mined). */
  write(call: ChainWrite): Promise<Hex>
  /** The receipt, or null while the transaction is not mined (or unknown to the node). */
  receipt(hash: Hex): Promise<ChainReceipt | null>
  credentialStatus(
    registrant: Address,
    issuer: Hex,
    credentialHash: Hex,
  ): Promise<{ registeredAt: bigint; revokedAt: bigint }>
  /** Asked of `registry`: the current credential registry or, for a version-1 batch, the version-1 one. */
  batchedStatus(
    registry: Address,
    registrant: Address,
    issuer: Hex,
    credentialHash: Hex,
    root: Hex,
    proof: Hex[],
  ): Promise<{ anchoredAt: bigint; revokedAt: bigint }>
  /** The current credential registry's batch leaf of a credential (CredentialRegistry.leaf). */
  credentialLeaf(issuer: Hex, credentialHash: Hex): Promise<Hex>
  schema(
    registrant: Address,
    schemaId: Hex,
  ): Promise<{ issuer: Hex; latestHash: Hex; registeredAt: bigint; versions: number }>
  schemaVersionAt(registrant: Address, schemaId: Hex, schemaHash: Hex): Promise<bigint>
  consent(
    registrant: Address,
    consentKey: Hex,
  ): Promise<{ valid: boolean; grantedAt: bigint; expiresAt: bigint; revokedAt: bigint }>
}

/** The contract refused the call (a revert): sending it again unchanged will not help. */
export class ChainRevertError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'ChainRevertError'
  }
}

export interface ViemChainClientOptions {
  rpcUrl: string
  privateKey: Hex
  contracts: ChainContracts
  /** Per RPC request. */
  timeoutMs?: number
}

export function createViemChainClient(options: ViemChainClientOptions): ChainClient {
  // Retries belong to the outbox (durable, with back-off): the transport fails fast.
  const transport: Transport = /^wss?:/.test(options.rpcUrl)
    ? webSocket(options.rpcUrl, { retryCount: 0, timeout: options.timeoutMs ?? 10_000 })
    : http(options.rpcUrl, { retryCount: 0, timeout: options.timeoutMs ?? 10_000 })
  const account = privateKeyToAccount(options.privateKey)
  const publicClient: PublicClient = createPublicClient({ transport })
  const { contracts } = options
  // The chain id is asked once, on first use: start-up must not need the chain to be up.
  let chain: Promise<Chain> | undefined
  const getChain = (): Promise<Chain> => {
    chain ??= publicClient.getChainId().then(
      (id) =>
        defineChain({
          id,
          name: `chain-${id}`,
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: { default: { http: [options.rpcUrl] } },
        }),
      (err: unknown) => {
        chain = undefined
        throw err
      },
    )
    return chain
  }

  const toRequest = (call: ChainWrite) => {
    switch (call.fn) {
      case 'anchorBatch':
        return {
          address: call.registry,
          abi: credentialRegistryAbi,
          functionName: 'anchorBatch',
          args: [call.root, call.size],
        } as const
      case 'registerCredential':
        return {
          address: contracts.credentialRegistry,
          abi: credentialRegistryAbi,
          functionName: 'register',
          args: [call.issuer, call.credentialHash],
        } as const
      case 'revokeCredential':
        return {
          address: contracts.credentialRegistry,
          abi: credentialRegistryAbi,
          functionName: 'revoke',
          args: [call.issuer, call.credentialHash],
        } as const
      case 'revokeBatchedCredential':
        return {
          address: call.registry,
          abi: credentialRegistryAbi,
          functionName: 'revokeBatched',
          args: [call.issuer, call.credentialHash, call.root, call.proof],
        } as const
      case 'registerSchema':
        return {
          address: contracts.schemaRegistry,
          abi: schemaRegistryAbi,
          functionName: 'register',
          args: [call.schemaId, call.issuer, call.schemaHash],
        } as const
      case 'grantConsent':
        return {
          address: contracts.consentRegistry,
          abi: consentRegistryAbi,
          functionName: 'grant',
          args: [call.consentKey, call.expiresAt],
        } as const
      case 'revokeConsent':
        return {
          address: contracts.consentRegistry,
          abi: consentRegistryAbi,
          functionName: 'revoke',
          args: [call.consentKey],
        } as const
    }
  }

  return {
    account: account.address,
    contracts,
    chainId: async () => (await getChain()).id,
    blockNumber: () => publicClient.getBlockNumber({ cacheTime: 0 }),
    async write(call) {
      const resolved = await getChain()
      const wallet = createWalletClient({ account, chain: resolved, transport })
      try {
        // Simulated first so a revert is reported as such (permanent) rather than as a failed send.
        const { request } = await publicClient.simulateContract({ ...toRequest(call), account } as Parameters<
          PublicClient['simulateContract']
        >[0])
        return await wallet.writeContract(request as Parameters<typeof wallet.writeContract>[0])
      } catch (err) {
        if (isRevert(err)) throw new ChainRevertError(revertReason(err), { cause: err })
        throw err
      }
    },
    async receipt(hash) {
      try {
        const r = await publicClient.getTransactionReceipt({ hash })
        return { status: r.status, blockNumber: r.blockNumber, gasUsed: r.gasUsed }
      } catch (err) {
        if (err instanceof TransactionReceiptNotFoundError) return null
        throw err
      }
    },
    async credentialStatus(registrant, issuer, credentialHash) {
      const [registeredAt, revokedAt] = await publicClient.readContract({
        address: contracts.credentialRegistry,
        abi: credentialRegistryAbi,
        functionName: 'status',
        args: [registrant, issuer, credentialHash],
      })
      return { registeredAt, revokedAt }
    },
    async batchedStatus(registry, registrant, issuer, credentialHash, root, proof) {
      const [anchoredAt, revokedAt] = await publicClient.readContract({
        address: registry,
        abi: credentialRegistryAbi,
        functionName: 'batchedStatus',
        args: [registrant, issuer, credentialHash, root, proof],
      })
      return { anchoredAt, revokedAt }
    },
    credentialLeaf: (issuer, credentialHash) =>
      publicClient.readContract({
        address: contracts.credentialRegistry,
        abi: credentialRegistryAbi,
        functionName: 'leaf',
        args: [issuer, credentialHash],
      }),
    async schema(registrant, schemaId) {
      const [issuer, latestHash, registeredAt, versions] = await publicClient.readContract({
        address: contracts.schemaRegistry,
        abi: schemaRegistryAbi,
        functionName: 'schema',
        args: [registrant, schemaId],
      })
      return { issuer, latestHash, registeredAt, versions }
    },
    schemaVersionAt: (registrant, schemaId, schemaHash) =>
      publicClient.readContract({
        address: contracts.schemaRegistry,
        abi: schemaRegistryAbi,
        functionName: 'versionRegisteredAt',
        args: [registrant, schemaId, schemaHash],
      }),
    async consent(registrant, consentKey) {
      const [valid, grantedAt, expiresAt, revokedAt] = await publicClient.readContract({
        address: contracts.consentRegistry,
        abi: consentRegistryAbi,
        functionName: 'check',
        args: [registrant, consentKey],
      })
      return { valid, grantedAt, expiresAt, revokedAt }
    },
  }
}

function isRevert(err: unknown): boolean {
  return (
    err instanceof BaseError &&
    err.walk((e) => e instanceof ContractFunctionRevertedError) instanceof ContractFunctionRevertedError
  )
}

function revertReason(err: unknown): string {
  const revert = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : undefined
  if (revert instanceof ContractFunctionRevertedError)
    return `reverted: ${revert.data?.errorName ?? revert.reason ?? 'no reason'}`
  return 'reverted'
}
