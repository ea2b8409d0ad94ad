/**
 * `npm run chain:dev`: a local EVM dev chain (EDR, in this process) on 127.0.0.1:8545 (or
 * CHAIN_DEV_PORT), with the registries deployed, printing the environment to start the service
 * against it. Development keys only: they are public. Ctrl-C stops it (the state is in memory).
 */
import { deployRegistries, deploymentEnv } from '../src/adapters/chain/deploy.js'
import { startDevChain } from './lib/dev-chain.js'

const port = Number(process.env.CHAIN_DEV_PORT ?? 8545)
const chain = await startDevChain({ port })
const deployment = await deployRegistries({ rpcUrl: chain.url, privateKey: chain.privateKeys[0]! })
console.log(`Dev chain ${chain.chainId} listening on ${chain.url}; registries deployed.\n`)
console.log('Start the service with:\n')
console.log(`BLOCKCHAIN_RPC_URL=${chain.url}`)
console.log(`BLOCKCHAIN_PRIVATE_KEY=${chain.privateKeys[0]}`)
console.log(deploymentEnv(deployment))
console.log('\nCtrl-C stops the chain.')
const stop = async () => {
  await chain.stop()
  process.exit(0)
}
process.on('SIGINT', () => void stop())
process.on('SIGTERM', () => void stop())
