import { coreCount } from './cpu.js'
import type { RawCryptoCost } from './issuance-crypto.js'
import { ISSUANCE_PHASES, type IssuancePhase } from './issuance-load.js'
import { PHASE_LABEL, type IssuanceRun } from './issuance-run.js'
import type { BenchOptions, Engine } from './options.js'
import { bottleneck, cpuLine, NOISY_OTHER_CORES, num, phaseCpu, type PhaseCpu } from './report.js'
import { median, round } from './stats.js'

/** Issue targets: issuance/s >= half the raw-crypto ceiling; JWT-only >= 1,000/s on PGlite. */
export const TARGET_CEILING_RATIO = 0.5
export const TARGET_JWT_PER_SECOND = 1000

export interface IssuancePhaseSummary {
  credentialsPerSecond: number
  p50Ms: number
  p99Ms: number
  errors: number
  errorKinds: Record<string, number>
  /** Credentials/s the raw crypto alone allows on all cores, and issuance/s divided by it. */
  ceilingPerSecond: number
  ratio: number
  cpu: PhaseCpu
  clientMsPerCredential: number
  serverMsPerCredential: number | null
  serverMainThreadMsPerCredential: number | null
  /** Raw crypto per credential / server CPU per credential: the rest is HTTP, JSON, DB, storage. */
  cryptoShareOfServerCpu: number | null
  bottleneck: string
  perRound: number[]
}

export interface IssuanceEngineSummary {
  engine: Engine
  phases: Record<IssuancePhase, IssuancePhaseSummary>
  targets: {
    /** JWT + BBS issuance >= half the ceiling. */
    bbsRatio: boolean
    /** JWT-only >= 1,000/s: judged on PGlite only (null elsewhere). */
    jwtPerSecond: boolean | null
  }
}

function summarizePhase(run: IssuanceRun, phase: IssuancePhase, crypto: RawCryptoCost): IssuancePhaseSummary {
  const results = run.rounds.map((r) => r[phase])
  const rate = median(results.map((r) => r.credentialsPerSecond))
  const cpu = phaseCpu(results.map((r) => r.cpu))
  const msPer = (cores: number | null) => (cores === null || rate === 0 ? null : round((cores / rate) * 1000, 3))
  const errorKinds: Record<string, number> = {}
  for (const r of results)
    for (const [kind, n] of Object.entries(r.errorKinds)) errorKinds[kind] = (errorKinds[kind] ?? 0) + n
  const serverMs = msPer(cpu.server)
  return {
    credentialsPerSecond: round(rate, 1),
    p50Ms: round(median(results.map((r) => r.p50Ms)), 1),
    p99Ms: round(median(results.map((r) => r.p99Ms)), 1),
    errors: results.reduce((n, r) => n + r.errors, 0),
    errorKinds,
    ceilingPerSecond: crypto.ceilingPerSecond[phase],
    ratio: round(rate / crypto.ceilingPerSecond[phase], 3),
    cpu,
    clientMsPerCredential: msPer(cpu.client) ?? 0,
    serverMsPerCredential: serverMs,
    serverMainThreadMsPerCredential: msPer(cpu.serverMainThread),
    cryptoShareOfServerCpu: serverMs ? round(crypto.perCredentialMs[phase] / serverMs, 3) : null,
    bottleneck: bottleneck(cpu),
    perRound: results.map((r) => round(r.credentialsPerSecond, 1)),
  }
}

export function summarizeIssuance(engine: Engine, run: IssuanceRun, crypto: RawCryptoCost): IssuanceEngineSummary {
  const phases = { bbs: summarizePhase(run, 'bbs', crypto), jwt: summarizePhase(run, 'jwt', crypto) }
  return {
    engine,
    phases,
    targets: {
      bbsRatio: phases.bbs.ratio >= TARGET_CEILING_RATIO,
      jwtPerSecond: engine === 'pglite' ? phases.jwt.credentialsPerSecond >= TARGET_JWT_PER_SECOND : null,
    },
  }
}

const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS')
const ms = (v: number | null) => (v === null ? 'n/a' : `${v} ms`)
const share = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v * 100)}%`)

export function printRawCrypto(c: RawCryptoCost): void {
  const rows: [string, string][] = [
    [`BBS sign, ${c.bbsMessages} messages (bbs-core, one thread)`, `${c.bbsSignDirectMs} ms`],
    ['BBS sign through the pool, one at a time', `${c.bbsSignPoolMs} ms (worker round trip included)`],
    [`BBS pool of ${c.bbsPoolWorkers} kept busy`, `${num(c.bbsPoolSignsPerSecond)} signs/s`],
    ['EdDSA JWS sign (jose)', `${c.ed25519SignMs} ms`],
    ['HPKE seal (ML-KEM-768, AES-256-GCM)', `${c.kemSealMs} ms (CPU ${c.kemSealCpuMs} ms)`],
    ['crypto per credential JWT + BBS / JWT only', `${c.perCredentialMs.bbs} ms / ${c.perCredentialMs.jwt} ms`],
    [
      `ceiling on ${c.cores} cores JWT + BBS / JWT only`,
      `${num(c.ceilingPerSecond.bbs)} / ${num(c.ceilingPerSecond.jwt)} credentials/s`,
    ],
  ]
  const width = Math.max(...rows.map(([k]) => k.length))
  console.log(`\nraw issuance crypto, measured alone in the bench process (medians of ${c.iterations})`)
  for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`)
  if ((c.otherLoadCores ?? 0) > NOISY_OTHER_CORES)
    console.log(
      `  warning: processes outside the benchmark used ${c.otherLoadCores} cores meanwhile; these medians are inflated by that noise`,
    )
}

export function printIssuance(s: IssuanceEngineSummary): void {
  console.log(`\n${s.engine} issuance (medians over rounds)`)
  for (const phase of ISSUANCE_PHASES) {
    const p = s.phases[phase]
    const target =
      phase === 'bbs'
        ? `(target >= ${TARGET_CEILING_RATIO}): ${verdict(s.targets.bbsRatio)}`
        : s.targets.jwtPerSecond === null
          ? '(1,000/s target judged on PGlite)'
          : `(target >= ${num(TARGET_JWT_PER_SECOND)}/s: ${verdict(s.targets.jwtPerSecond)})`
    const rows: [string, string][] = [
      [
        'credentials/s',
        `${num(p.credentialsPerSecond)}, errors ${p.errors}${p.errors ? ` ${JSON.stringify(p.errorKinds)}` : ''} ${phase === 'jwt' ? target : ''}`,
      ],
      ['latency p50 / p99', `${p.p50Ms} ms / ${p.p99Ms} ms`],
      [
        'ratio to the crypto ceiling',
        `${p.ratio} of ${num(p.ceilingPerSecond)}/s ${phase === 'bbs' ? target : '(informative)'}`,
      ],
      ['per round', p.perRound.join(',  ')],
      ['CPU cores', cpuLine(p.cpu)],
      [
        'CPU per credential',
        `client ${ms(p.clientMsPerCredential)}, server ${ms(p.serverMsPerCredential)} (main thread ${ms(p.serverMainThreadMsPerCredential)}); raw crypto = ${share(p.cryptoShareOfServerCpu)} of the server's`,
      ],
      ['limited by', p.bottleneck],
    ]
    const width = Math.max(...rows.map(([k]) => k.length))
    console.log(`  ${PHASE_LABEL[phase]}`)
    for (const [k, v] of rows) console.log(`    ${k.padEnd(width)}  ${v}`)
  }
  const other = Math.max(...ISSUANCE_PHASES.map((phase) => s.phases[phase].cpu.other ?? 0))
  if (other > NOISY_OTHER_CORES)
    console.log(
      `  warning: processes outside the benchmark used up to ${other} cores; these numbers are depressed by that noise`,
    )
}

export function issuanceMarkdown(
  summaries: IssuanceEngineSummary[],
  crypto: RawCryptoCost,
  { issuanceConnections, seconds, rounds }: BenchOptions,
  code: string,
): string {
  const lines = [
    '| Engine | Issuance | Credentials/s | Crypto ceiling (/s) | Ratio | p50 / p99 | Errors | Server CPU per credential (main thread) | Raw crypto share |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ]
  for (const s of summaries) {
    for (const phase of ISSUANCE_PHASES) {
      const p = s.phases[phase]
      lines.push(
        `| ${s.engine} | ${PHASE_LABEL[phase]} | ${num(p.credentialsPerSecond)} | ${num(p.ceilingPerSecond)} | ${p.ratio.toFixed(3)} | ${p.p50Ms} / ${p.p99Ms} ms | ${p.errors} | ${ms(p.serverMsPerCredential)} (${ms(p.serverMainThreadMsPerCredential)}) | ${share(p.cryptoShareOfServerCpu)} |`,
      )
    }
  }
  const targets = [
    `BBS sign median ${crypto.bbsSignMs} ms`,
    ...summaries.map(
      (s) =>
        `${s.engine} JWT + BBS at ${s.phases.bbs.ratio.toFixed(3)} of the ceiling (≥ ${TARGET_CEILING_RATIO}): ${verdict(s.targets.bbsRatio)}`,
    ),
    ...summaries
      .filter((s) => s.targets.jwtPerSecond !== null)
      .map(
        (s) =>
          `${s.engine} JWT only ${num(s.phases.jwt.credentialsPerSecond)}/s (≥ ${num(TARGET_JWT_PER_SECOND)}/s): ${verdict(s.targets.jwtPerSecond!)}`,
      ),
  ]
  return [
    lines.join('\n'),
    '',
    `Targets: ${targets.join('; ')}.`,
    '',
    `_Raw crypto, measured alone in the bench process (median of ${crypto.iterations}): BBS sign of ${crypto.bbsMessages} messages ${crypto.bbsSignMs} ms on one thread (${crypto.bbsSignPoolMs} ms through the pool; a pool of ${crypto.bbsPoolWorkers} workers: ${num(crypto.bbsPoolSignsPerSecond)} signs/s), EdDSA JWS sign ${crypto.ed25519SignMs} ms, HPKE seal to ML-KEM-768 ${crypto.kemSealMs} ms (CPU ${crypto.kemSealCpuMs} ms) (other load meanwhile ${crypto.otherLoadCores ?? 'n/a'} cores). Ceiling = ${coreCount()} cores / crypto per credential (${crypto.perCredentialMs.bbs} ms JWT + BBS, ${crypto.perCredentialMs.jwt} ms JWT only). \`npm run bench\` at ${code}: ${issuanceConnections} connections, ${seconds} s per phase, median of ${rounds} interleaved rounds, same server process as the login rounds._`,
  ].join('\n')
}
