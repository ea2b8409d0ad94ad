/**
 * A local EVM dev chain for tests and `npm run chain:dev`: EDR (the Rust EVM inside Hardhat,
 * the npm package @nomicfoundation/edr with prebuilt native binaries, nothing downloaded)
 * run in-process, behind a small JSON-RPC-over-HTTP server on 127.0.0.1.
 *
 * `pause()` closes the HTTP server and drops its connections while the chain state stays in
 * memory; `resume()` listens again on the same port. That is "the chain is down, then it
 * comes back" for the outbox tests, without losing the deployed contracts.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  ContractDecoder,
  EdrContext,
  L1_CHAIN_TYPE,
  l1GenesisState,
  l1HardforkFromString,
  l1ProviderFactory,
  MineOrdering,
  type Provider,
} from '@nomicfoundation/edr'
import { privateKeyToAccount } from 'viem/accounts'
import type { Hex } from 'viem'

/** Hardhat's well-known development keys (mnemonic "test test … junk"): public, never for real funds. */
export const DEV_PRIVATE_KEYS: readonly Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
]

export interface DevChain {
  readonly url: string
  readonly port: number
  readonly chainId: number
  readonly privateKeys: readonly Hex[]
  /** Raw JSON-RPC into the chain, bypassing the HTTP server (works while paused). */
  request(method: string, params?: unknown[]): Promise<unknown>
  /** Stops answering (connections refused) but keeps the chain state. */
  pause(): Promise<void>
  resume(): Promise<void>
  stop(): Promise<void>
}

let context: Promise<EdrContext> | undefined
/** EDR allows one context per process ("should only be called once"). */
function edrContext(): Promise<EdrContext> {
  context ??= (async () => {
    const ctx = new EdrContext()
    await ctx.registerProviderFactory(L1_CHAIN_TYPE, l1ProviderFactory())
    return ctx
  })()
  return context
}

export async function startDevChain(
  options: { port?: number; host?: string; chainId?: number; hardfork?: string } = {},
): Promise<DevChain> {
  const host = options.host ?? '127.0.0.1'
  const chainId = options.chainId ?? 31337
  const hardfork = options.hardfork ?? 'Prague'
  const ctx = await edrContext()
  const accounts = DEV_PRIVATE_KEYS.map((key) => ({
    address: Buffer.from(privateKeyToAccount(key).address.slice(2), 'hex'),
    balance: 10n ** 24n,
  }))
  const provider: Provider = await ctx.createProvider(
    L1_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: false,
      allowUnlimitedContractSize: false,
      bailOnCallFailure: true,
      bailOnTransactionFailure: true,
      blockGasLimit: 30_000_000n,
      chainId: BigInt(chainId),
      coinbase: Buffer.alloc(20),
      genesisState: [...l1GenesisState(l1HardforkFromString(hardfork)), ...accounts],
      hardfork,
      initialBaseFeePerGas: 1_000_000_000n,
      minGasPrice: 0n,
      mining: { autoMine: true, memPool: { order: MineOrdering.Priority } },
      networkId: BigInt(chainId),
      observability: {},
      ownedAccounts: [...DEV_PRIVATE_KEYS],
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    new ContractDecoder(),
  )

  const call = async (message: {
    id?: unknown
    method?: unknown
    params?: unknown
  }): Promise<Record<string, unknown>> => {
    const response = await provider.handleRequest(
      JSON.stringify({ jsonrpc: '2.0', id: message.id ?? null, method: message.method, params: message.params ?? [] }),
    )
    const data = typeof response.data === 'string' ? JSON.parse(response.data) : response.data
    // Reverts as geth reports them (code 3, the revert data as a hex string), which is what
    // clients such as viem decode custom errors from; EDR nests the data one level deeper.
    const revert = data?.error?.data?.data
    if (typeof revert === 'string' && /^0x[0-9a-fA-F]*$/.test(revert)) {
      data.error = { code: 3, message: `execution reverted: ${data.error.message}`, data: revert }
    }
    return { jsonrpc: '2.0', id: message.id ?? null, ...data }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      void (async () => {
        let body: unknown
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        } catch {
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }))
          return
        }
        const answer = Array.isArray(body)
          ? await Promise.all(body.map((m) => call(m)))
          : await call(body as Record<string, unknown>)
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer))
      })().catch((err: unknown) => {
        res.writeHead(500).end(String(err))
      })
    })
  })
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  await listen(options.port ?? 0)
  const port = (server.address() as AddressInfo).port
  let listening = true
  const close = async () => {
    if (!listening) return
    listening = false
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return {
    url: `http://${host}:${port}`,
    port,
    chainId,
    privateKeys: DEV_PRIVATE_KEYS,
    async request(method, params = []) {
      const answer = await call({ id: 1, method, params })
      if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`)
      return answer.result
    },
    pause: close,
    async resume() {
      if (listening) return
      await listen(port)
      listening = true
    },
    stop: close,
  }
}
