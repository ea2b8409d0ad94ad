import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Hex } from 'viem'
import { createViemChainClient, type ChainClient } from '../../adapters/chain/chain-client.js'
import { deriveKey } from '../../crypto/secret-box.js'
import type { ModuleContext } from '../shared/module-context.js'
import { blockchainLegacyRoutes } from './blockchain-legacy.routes.js'
import { blockchainRoutes } from './blockchain.routes.js'
import { BlockchainService, type BlockchainServiceDeps } from './blockchain.service.js'
import { createChainAnchor, type ChainAnchor } from './chain-anchor.js'
import { ChainDispatcher } from './chain-dispatcher.js'
import { createChainCredentialCheck, type ChainCredentialCheck } from './chain-verification.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Chain anchoring through the durable outbox: `enqueue(trx, request)` in a transaction, `nudge()` after it. */
    chainAnchor: ChainAnchor
    /** The outbox worker; undefined without a configured chain. */
    chainDispatcher: ChainDispatcher | undefined
    /** Live registry check of presented credentials for verification; undefined without a chain. */
    chainCredentials: ChainCredentialCheck | undefined
  }
}

export interface BlockchainPluginOptions extends ModuleContext {
  /** The chain client; default: viem over BLOCKCHAIN_RPC_URL when a chain is configured. */
  client?: ChainClient
  /** The issuer step-up check of credential anchoring and on-chain revocation (BlockchainServiceDeps). */
  stepUp?: BlockchainServiceDeps['stepUp']
}

/**
 * Registers /api/blockchain and /api/blockchain-legacy, decorates the app with `chainAnchor`
 * (the port issuance, schemas and consents anchor through), starts the outbox dispatcher when
 * the app is ready and stops it on close. Register it before the hook that closes the database.
 */
async function blockchain(app: FastifyInstance, options: BlockchainPluginOptions): Promise<void> {
  const { config, db, clock } = options
  const idempotency = app.idempotency
  const client =
    options.client ??
    (config.blockchainRpcUrl && config.blockchainPrivateKey && config.blockchainContracts
      ? createViemChainClient({
          rpcUrl: config.blockchainRpcUrl,
          privateKey: config.blockchainPrivateKey as Hex,
          contracts: config.blockchainContracts,
          timeoutMs: config.outboundTimeoutMs,
        })
      : undefined)
  const dispatcher = client
    ? new ChainDispatcher({
        db,
        client,
        clock,
        pollMs: config.blockchainPollMs,
        leaseMs: config.blockchainLeaseMs,
        batchSize: config.blockchainBatchSize,
        batchWaitMs: config.blockchainBatchWaitMs,
        logger: app.log.child({ module: 'chain' }),
      })
    : undefined
  const consentPepper = deriveKey(options.masterKey, 'chain-consent-key-v1')
  const anchor = createChainAnchor({
    configured: client !== undefined,
    clock,
    consentPepper,
    nudge: () => dispatcher?.nudge(),
  })
  const service = new BlockchainService({
    db,
    anchor,
    client,
    consentPepper,
    batchSize: config.blockchainBatchSize,
    batchWaitMs: config.blockchainBatchWaitMs,
    stepUp: options.stepUp,
  })
  app.decorate('chainAnchor', anchor)
  app.decorate('chainDispatcher', dispatcher)
  app.decorate('chainCredentials', client ? createChainCredentialCheck(db, service) : undefined)
  await app.register(blockchainRoutes, { prefix: '/api/blockchain', blockchain: service, idempotency })
  await app.register(blockchainLegacyRoutes, {
    prefix: '/api/blockchain-legacy',
    blockchain: service,
    currentPrefix: '/api/blockchain',
    idempotency,
  })
  if (dispatcher) {
    app.addHook('onReady', async () => dispatcher.start())
    app.addHook('onClose', async () => dispatcher.stop())
  }
}

export const blockchainPlugin = fp(blockchain, { name: 'blockchain', fastify: '5.x', dependencies: ['idempotency'] })
