import type { CpuUse } from './cpu.js'
import { cpuPerOperation, measured, noise } from './engine-run.js'
import { JsonClient } from './http-client.js'
import {
  enrollHolders,
  HOLDER_COUNT,
  ISSUANCE_PHASES,
  runIssuanceLoad,
  setUpIssuer,
  type IssuanceLoadResult,
  type IssuancePhase,
} from './issuance-load.js'
import type { BenchOptions, Engine } from './options.js'
import type { ServerProcess } from './server-process.js'
import { createVirtualUser } from './virtual-user.js'

export type IssuanceRound = Record<IssuancePhase, IssuanceLoadResult & { cpu: CpuUse }>

export interface IssuanceRun {
  rounds: IssuanceRound[]
  connections: number
  holders: number
}

export const PHASE_LABEL: Record<IssuancePhase, string> = { bbs: 'JWT + BBS', jwt: 'JWT only' }

/**
 * Against one running server: one issuer with a BBS schema and a JWT-only schema, every holder's
 * first credential (its ML-KEM key is made then), a warm-up of each phase (JIT, BBS params and
 * WASM in every worker, key caches), then rounds with the two phases interleaved.
 */
export async function runIssuanceAgainstServer(
  server: ServerProcess,
  engine: Engine,
  options: BenchOptions,
  log: (line: string) => void,
): Promise<IssuanceRun> {
  const ownPostgres = engine === 'postgres'
  const connections = options.issuanceConnections
  const client = new JsonClient(server.baseUrl, connections)
  try {
    const issuer = await setUpIssuer(client)
    const holders = Array.from({ length: HOLDER_COUNT }, () => createVirtualUser().did)
    await enrollHolders(client, issuer, holders)
    if (options.warmupSeconds > 0) {
      log(
        `  issuance warm-up ${options.warmupSeconds} s per phase (${connections} connections, ${holders.length} holders)`,
      )
      for (const phase of ISSUANCE_PHASES) {
        const warm = await runIssuanceLoad(client, issuer, phase, holders, connections, options.warmupSeconds)
        if (warm.credentials === 0)
          throw new Error(
            `issuance warm-up (${phase}): no credential issued; errors ${JSON.stringify(warm.errorKinds)}`,
          )
      }
    }
    const rounds: IssuanceRound[] = []
    for (let i = 1; i <= options.rounds; i++) {
      const round = {} as IssuanceRound
      for (const phase of ISSUANCE_PHASES) {
        const result = await measured(server.pid, ownPostgres, () =>
          runIssuanceLoad(client, issuer, phase, holders, connections, options.seconds),
        )
        const errors = result.errors ? ` ${JSON.stringify(result.errorKinds)}` : ''
        log(
          `  round ${i}: issuance ${PHASE_LABEL[phase]} ${Math.round(result.credentialsPerSecond)}/s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms (errors ${result.errors}${errors}${noise(result.cpu)}${cpuPerOperation(result.cpu, result.credentialsPerSecond)})`,
        )
        round[phase] = result
      }
      rounds.push(round)
    }
    return { rounds, connections, holders: holders.length }
  } finally {
    client.close()
  }
}
