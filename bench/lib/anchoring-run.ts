/**
 * Issuance with chain anchoring configured against the same issuance without it (issue 5): two
 * server processes on the same engine, one pointed at a local EDR dev chain with the registries
 * deployed (BLOCKCHAIN_*), one with no chain; interleaved rounds of JWT-only issuance on both.
 * With a chain, every credential also writes its Merkle leaf row in the issuing transaction and
 * the chain outbox anchors batches (one transaction per BLOCKCHAIN_BATCH_SIZE hashes) while the
 * load runs. The dev chain runs inside this process, beside the load generator.
 */
import type { Hex } from 'viem'
import { deployRegistries } from '../../src/adapters/chain/deploy.js'
import { startDevChain } from '../../scripts/lib/dev-chain.js'
import { measured, noise } from './engine-run.js'
import { JsonClient } from './http-client.js'
import { enrollHolders, HOLDER_COUNT, runIssuanceLoad, setUpIssuer } from './issuance-load.js'
import type { BenchOptions, Engine } from './options.js'
import { createBenchDatabase } from './postgres.js'
import { startServer, type ServerBuild, type ServerProcess } from './server-process.js'
import { median } from './stats.js'
import { createVirtualUser } from './virtual-user.js'

export interface AnchoringSummary {
  engine: Engine
  withChainPerSecond: number
  withoutChainPerSecond: number
  /** with / without: what anchoring costs issuance throughput (1 = nothing). */
  ratio: number
  perRound: Array<{ withChain: number; withoutChain: number }>
  errors: number
  /**
   * The chain side's outbox at the end (after waiting up to 30 s for the last batch): chain jobs
   * mined (Merkle batches, plus the bench schema's registration) and failed, hashes still
   * waiting for a batch, and credentials issued in the measured rounds.
   */
  anchored: { jobsMined: number; jobsFailed: number; unbatched: number; issued: number }
}

export async function runAnchoringBench(
  engine: Engine,
  options: BenchOptions,
  build: ServerBuild,
  log: (line: string) => void,
): Promise<AnchoringSummary> {
  const chain = await startDevChain({ port: 0 })
  const databases =
    engine === 'postgres'
      ? [await createBenchDatabase(options.postgresUrl), await createBenchDatabase(options.postgresUrl)]
      : []
  const servers: ServerProcess[] = []
  try {
    const deployment = await deployRegistries({ rpcUrl: chain.url, privateKey: chain.privateKeys[0] as Hex })
    const chainEnv = {
      BLOCKCHAIN_RPC_URL: chain.url,
      BLOCKCHAIN_PRIVATE_KEY: chain.privateKeys[0]!,
      BLOCKCHAIN_CREDENTIAL_REGISTRY: deployment.contracts.credentialRegistry,
      BLOCKCHAIN_SCHEMA_REGISTRY: deployment.contracts.schemaRegistry,
      BLOCKCHAIN_CONSENT_REGISTRY: deployment.contracts.consentRegistry,
      BLOCKCHAIN_BATCH_WAIT_MS: '1000',
    }
    const withChain = await startServer({ build, databaseUrl: databases[0]?.url, env: chainEnv })
    servers.push(withChain)
    const withoutChain = await startServer({ build, databaseUrl: databases[1]?.url })
    servers.push(withoutChain)
    const sides = await Promise.all(
      [withChain, withoutChain].map(async (server) => {
        const client = new JsonClient(server.baseUrl, options.issuanceConnections)
        const issuer = await setUpIssuer(client)
        const holders = Array.from({ length: HOLDER_COUNT }, () => createVirtualUser().did)
        await enrollHolders(client, issuer, holders)
        return { server, client, issuer, holders }
      }),
    )
    const load = (side: (typeof sides)[number], seconds: number) =>
      runIssuanceLoad(side.client, side.issuer, 'jwt', side.holders, options.issuanceConnections, seconds)
    if (options.warmupSeconds > 0) for (const side of sides) await load(side, options.warmupSeconds)
    const perRound: AnchoringSummary['perRound'] = []
    let errors = 0
    let issuedWithChain = 0
    for (let i = 1; i <= options.rounds; i++) {
      const [a, b] = [
        await measured(sides[0]!.server.pid, engine === 'postgres', () => load(sides[0]!, options.seconds)),
        await measured(sides[1]!.server.pid, engine === 'postgres', () => load(sides[1]!, options.seconds)),
      ]
      errors += a.errors + b.errors
      issuedWithChain += a.credentials
      perRound.push({ withChain: a.credentialsPerSecond, withoutChain: b.credentialsPerSecond })
      log(
        `  round ${i}: JWT-only issuance with chain anchoring ${Math.round(a.credentialsPerSecond)}/s${noise(a.cpu)}, without ${Math.round(b.credentialsPerSecond)}/s${noise(b.cpu)} (errors ${a.errors + b.errors})`,
      )
    }
    // Let the last batch go out, then read what the chain side anchored.
    const status = await waitForAnchoring(sides[0]!.client, 30_000)
    for (const side of sides) side.client.close()
    const withPerSecond = median(perRound.map((r) => r.withChain))
    const withoutPerSecond = median(perRound.map((r) => r.withoutChain))
    return {
      engine,
      withChainPerSecond: round1(withPerSecond),
      withoutChainPerSecond: round1(withoutPerSecond),
      ratio: Math.round((withPerSecond / withoutPerSecond) * 1000) / 1000,
      perRound: perRound.map((r) => ({ withChain: round1(r.withChain), withoutChain: round1(r.withoutChain) })),
      errors,
      anchored: { ...status, issued: issuedWithChain },
    }
  } finally {
    for (const server of servers) await server.stop()
    for (const database of databases) await database.drop()
    await chain.stop()
  }
}

/** Polls /api/blockchain/status until nothing waits in the chain outbox (or the time is up). */
async function waitForAnchoring(
  client: JsonClient,
  timeoutMs: number,
): Promise<{ jobsMined: number; jobsFailed: number; unbatched: number }> {
  const deadline = Date.now() + timeoutMs
  let last = { jobsMined: 0, jobsFailed: 0, unbatched: 0 }
  while (Date.now() < deadline) {
    const res = await client.get('/api/blockchain/status')
    const outbox = (JSON.parse(res.body) as { data?: { outbox?: Record<string, number> } }).data?.outbox ?? {}
    last = {
      jobsMined: Number(outbox.mined ?? 0),
      jobsFailed: Number(outbox.failed ?? 0),
      unbatched: Number(outbox.unbatched_credentials ?? 0),
    }
    if (last.unbatched === 0 && Number(outbox.pending ?? 0) + Number(outbox.sent ?? 0) === 0) break
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  return last
}

const round1 = (v: number) => Math.round(v * 10) / 10
