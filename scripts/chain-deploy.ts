/**
 * `npm run chain:deploy`: compiles contracts/*.sol with solc-js and deploys the three registries
 * to BLOCKCHAIN_RPC_URL from BLOCKCHAIN_PRIVATE_KEY, then prints the addresses as the
 * environment lines the service reads (docs/blockchain.md). With `-- --credential-registry`,
 * only the credential registry: the upgrade of a deployment whose registry is version 1
 * (docs/blockchain.md "Upgrading a deployment").
 */
import { deployCredentialRegistry, deployRegistries, deploymentEnv } from '../src/adapters/chain/deploy.js'

const rpcUrl = process.env.BLOCKCHAIN_RPC_URL
const privateKey = process.env.BLOCKCHAIN_PRIVATE_KEY
if (!rpcUrl || !privateKey || !/^0x[0-9a-fA-F]{64}$/.test(privateKey)) {
  console.error('Set BLOCKCHAIN_RPC_URL and BLOCKCHAIN_PRIVATE_KEY (0x + 64 hex) to deploy the registries.')
  process.exit(2)
}
try {
  if (process.argv.includes('--credential-registry')) {
    const deployed = await deployCredentialRegistry({ rpcUrl, privateKey: privateKey as `0x${string}` })
    console.error(
      `Deployed CredentialRegistry on chain ${deployed.chainId} from ${deployed.deployer} (gas ${deployed.gasUsed}).`,
    )
    console.error(
      'Keep the schema and consent registries; move the old credential registry address to BLOCKCHAIN_CREDENTIAL_REGISTRY_V1.',
    )
    console.log(`BLOCKCHAIN_CREDENTIAL_REGISTRY=${deployed.address}`)
    process.exit(0)
  }
  const deployment = await deployRegistries({ rpcUrl, privateKey: privateKey as `0x${string}` })
  console.error(
    `Deployed on chain ${deployment.chainId} from ${deployment.deployer} (gas: ${Object.entries(deployment.gasUsed)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')})`,
  )
  console.log(deploymentEnv(deployment))
} catch (err) {
  console.error(`Deployment failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`)
  process.exit(1)
}
