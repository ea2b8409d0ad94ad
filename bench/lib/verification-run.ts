import { generateKeyPairSync, sign, verify } from 'node:crypto'
import { coreCount } from './cpu.js'
import type { CpuUse } from './cpu.js'
import { cpuPerOperation, measured, noise } from './engine-run.js'
import { JsonClient } from './http-client.js'
import { setUpIssuer } from './issuance-load.js'
import type { BenchOptions, Engine } from './options.js'
import type { ServerProcess } from './server-process.js'
import { median, round } from './stats.js'
import { runVerificationLoad, setUpPresentations, type VerificationLoadResult } from './verification-load.js'

/** Issue 4 targets: JWT-VC presentation verification ≥ 1,300/s, and ≥ 0.5 of the crypto ceiling. */
export const TARGET_VERIFY_PER_SECOND = 1300
export const TARGET_VERIFY_RATIO = 0.5

export interface VerificationSummary {
  engine: Engine
  /** Two Ed25519 verifications per presentation (the VP, its one credential), node:crypto, one thread. */
  ed25519VerifyMs: number
  ceilingPerSecond: number
  perSecond: number
  ratio: number
  p50Ms: number
  p99Ms: number
  errors: number
  errorKinds: Record<string, number>
  perRound: number[]
  cpu: CpuUse
}

/** The raw signature cost of one JWT-VC presentation: a VP-JWT-sized and a JWT-VC-sized input. */
export function measureVerifyCrypto(iterations: number): number {
  const { privateKey: key, publicKey: pub } = generateKeyPairSync('ed25519')
  const message = Buffer.alloc(1500, 7)
  const signature = sign(null, message, key)
  for (let i = 0; i < 50; i++) verify(null, message, pub, signature)
  const times: number[] = []
  for (let i = 0; i < iterations; i++) {
    const began = performance.now()
    verify(null, message, pub, signature)
    times.push(performance.now() - began)
  }
  return median(times)
}

export async function runVerificationAgainstServer(
  server: ServerProcess,
  engine: Engine,
  options: BenchOptions,
  log: (line: string) => void,
): Promise<VerificationSummary> {
  const client = new JsonClient(server.baseUrl, options.connections)
  try {
    const issuer = await setUpIssuer(client)
    const setUp = await setUpPresentations(client, issuer)
    if (options.warmupSeconds > 0) await runVerificationLoad(client, setUp, options.connections, options.warmupSeconds)
    const rounds: Array<VerificationLoadResult & { cpu: CpuUse }> = []
    for (let i = 1; i <= options.rounds; i++) {
      const result = await measured(server.pid, engine === 'postgres', () =>
        runVerificationLoad(client, setUp, options.connections, options.seconds),
      )
      log(
        `  round ${i}: JWT-VC presentation verification ${Math.round(result.perSecond)}/s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms (errors ${result.errors}${result.errors ? ` ${JSON.stringify(result.errorKinds)}` : ''}${noise(result.cpu)}${cpuPerOperation(result.cpu, result.perSecond)})`,
      )
      rounds.push(result)
    }
    const sorted = [...rounds].sort((a, b) => a.perSecond - b.perSecond)
    const mid = sorted[Math.floor(sorted.length / 2)]!
    const ed25519VerifyMs = measureVerifyCrypto(options.cryptoIterations)
    const ceilingPerSecond = (coreCount() * 1000) / (2 * ed25519VerifyMs)
    return {
      engine,
      ed25519VerifyMs: round(ed25519VerifyMs, 3),
      ceilingPerSecond: round(ceilingPerSecond),
      perSecond: round(mid.perSecond, 1),
      ratio: round(mid.perSecond / ceilingPerSecond, 3),
      p50Ms: round(mid.p50Ms, 1),
      p99Ms: round(mid.p99Ms, 1),
      errors: mid.errors,
      errorKinds: mid.errorKinds,
      perRound: rounds.map((r) => round(r.perSecond, 1)),
      cpu: mid.cpu,
    }
  } finally {
    client.close()
  }
}

export function printVerification(s: VerificationSummary): void {
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS')
  console.log(`\n${s.engine} JWT-VC presentation verification (median over rounds)`)
  console.log(
    `  verifications/s              ${s.perSecond}, errors ${s.errors} (target >= ${TARGET_VERIFY_PER_SECOND}/s: ${verdict(s.perSecond >= TARGET_VERIFY_PER_SECOND)})`,
  )
  console.log(
    `  ratio to the crypto ceiling  ${s.ratio} of ${s.ceilingPerSecond}/s (2 Ed25519 verifications at ${s.ed25519VerifyMs} ms on ${coreCount()} cores; target >= ${TARGET_VERIFY_RATIO}: ${verdict(s.ratio >= TARGET_VERIFY_RATIO)})`,
  )
  console.log(`  latency p50 / p99            ${s.p50Ms} ms / ${s.p99Ms} ms; per round ${s.perRound.join(', ')}`)
}
