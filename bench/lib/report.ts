import type { EngineRun } from './engine-run.js'
import type { Engine } from './options.js'
import { median, round } from './stats.js'

/** Issue target: login flows/s >= 1/3 of half the floor's req/s (a flow is two requests). */
export const TARGET_RATIO = 1 / 3
/** Above this much CPU taken by processes outside the benchmark, the run is flagged as noisy. */
const NOISY_OTHER_CORES = 0.25

export interface EngineSummary {
  engine: Engine
  floorRps: number
  flowsPerSecond: number
  /** flows / (floor / 2) */
  ratio: number
  pass: boolean
  flowP50Ms: number
  flowP99Ms: number
  floorP99Ms: number
  floorErrors: number
  loginErrors: number
  loginErrorKinds: Record<string, number>
  usersReused: string
  /** Cores' worth of CPU during the login phase; the machine's cores are shared by all three. */
  cpu: { clientCores: number; serverCores: number | null; postgresCores: number | null; otherCores: number | null; machineBusy: number | null; clientUsPerFlow: number; serverUsPerFlow: number | null; serverUsPerFloorRequest: number | null }
  perRound: { floorRps: number; flowsPerSecond: number }[]
}

export function summarize(engine: Engine, run: EngineRun): EngineSummary {
  const floors = run.rounds.map((r) => r.floor)
  const logins = run.rounds.map((r) => r.login)
  const floorRps = median(floors.map((f) => f.requestsPerSecond))
  const flowsPerSecond = median(logins.map((l) => l.flowsPerSecond))
  const ratio = flowsPerSecond / (floorRps / 2)
  const optional = (values: (number | undefined)[]) => (values.some((v) => v === undefined) ? null : median(values as number[]))
  const cores = (values: (number | undefined)[]) => {
    const m = optional(values)
    return m === null ? null : round(m, 2)
  }
  const serverCores = optional(logins.map((l) => l.cpu.serverCores))
  const floorServerCores = optional(floors.map((f) => f.cpu.serverCores))
  const clientCores = median(logins.map((l) => l.cpu.clientCores))
  const errorKinds: Record<string, number> = {}
  for (const l of logins) for (const [kind, n] of Object.entries(l.errorKinds)) errorKinds[kind] = (errorKinds[kind] ?? 0) + n
  return {
    engine,
    floorRps: round(floorRps),
    flowsPerSecond: round(flowsPerSecond),
    ratio: round(ratio, 3),
    pass: ratio >= TARGET_RATIO,
    flowP50Ms: round(median(logins.map((l) => l.p50Ms)), 1),
    flowP99Ms: round(median(logins.map((l) => l.p99Ms)), 1),
    floorP99Ms: round(median(floors.map((f) => f.p99Ms)), 1),
    floorErrors: floors.reduce((n, f) => n + f.errors, 0),
    loginErrors: logins.reduce((n, l) => n + l.errors, 0),
    loginErrorKinds: errorKinds,
    usersReused: `${run.usersReused}/${run.users}`,
    cpu: {
      clientCores: round(clientCores, 2),
      serverCores: serverCores === null ? null : round(serverCores, 2),
      postgresCores: engine === 'postgres' ? cores(logins.map((l) => l.cpu.postgresCores)) : null,
      // With PGlite, PostgreSQL activity on this machine is someone else's: count it as other load.
      otherCores: cores(logins.map((l) => (engine === 'postgres' || l.cpu.otherCores === undefined ? l.cpu.otherCores : l.cpu.otherCores + (l.cpu.postgresCores ?? 0)))),
      machineBusy: cores(logins.map((l) => l.cpu.machineBusy)),
      clientUsPerFlow: round((clientCores / flowsPerSecond) * 1e6),
      serverUsPerFlow: serverCores === null ? null : round((serverCores / flowsPerSecond) * 1e6),
      serverUsPerFloorRequest: floorServerCores === null ? null : round((floorServerCores / floorRps) * 1e6),
    },
    perRound: run.rounds.map((r) => ({ floorRps: round(r.floor.requestsPerSecond), flowsPerSecond: round(r.login.flowsPerSecond) })),
  }
}

const pct = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v * 100)}%`)
const num = (v: number | null) => (v === null ? 'n/a' : v.toLocaleString('en-US'))

export function printEngine(s: EngineSummary): void {
  const rows: [string, string][] = [
    ['floor GET /api/health/live (median)', `${num(s.floorRps)} req/s (p99 ${s.floorP99Ms} ms, errors ${s.floorErrors})`],
    ['login flows (median)', `${num(s.flowsPerSecond)} flows/s (errors ${s.loginErrors}${s.loginErrors ? ` ${JSON.stringify(s.loginErrorKinds)}` : ''})`],
    ['flow latency p50 / p99', `${s.flowP50Ms} ms / ${s.flowP99Ms} ms`],
    ['ratio flows / (floor / 2)', `${s.ratio} (target >= ${round(TARGET_RATIO, 3)}): ${s.pass ? 'PASS' : 'MISS'}`],
    ['per round floor / flows', s.perRound.map((r) => `${r.floorRps}/${r.flowsPerSecond}`).join('  ')],
    ['CPU in login phase (cores)', `client ${s.cpu.clientCores}, server ${s.cpu.serverCores ?? 'n/a'}${s.engine === 'postgres' ? `, postgres ${s.cpu.postgresCores ?? 'n/a'}` : ''}, other ${s.cpu.otherCores ?? 'n/a'}; machine ${pct(s.cpu.machineBusy)} busy`],
    ['CPU per flow: client / server', `${num(s.cpu.clientUsPerFlow)} µs / ${num(s.cpu.serverUsPerFlow)} µs (server per floor request ${num(s.cpu.serverUsPerFloorRequest)} µs)`],
    ['users reused by later logins', s.usersReused],
  ]
  const width = Math.max(...rows.map(([k]) => k.length))
  console.log(`\n${s.engine}`)
  for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`)
  if ((s.cpu.otherCores ?? 0) > NOISY_OTHER_CORES) {
    console.log(`  warning: other processes used ${s.cpu.otherCores} cores during the login phases; numbers are depressed by that noise`)
  }
}

export function markdownTable(summaries: EngineSummary[], connections: number, seconds: number, rounds: number): string {
  const lines = [
    `| Engine | Floor (req/s) | Login flows/s | Ratio flows/(floor/2) | Target | Flow p50 / p99 | Errors | Client CPU/flow |`,
    `|---|---:|---:|---:|---|---:|---:|---:|`,
    ...summaries.map((s) =>
      `| ${s.engine} | ${num(s.floorRps)} | ${num(s.flowsPerSecond)} | ${s.ratio.toFixed(2)} | ≥ 0.33 ${s.pass ? 'PASS' : 'MISS'} | ${s.flowP50Ms} / ${s.flowP99Ms} ms | ${s.loginErrors + s.floorErrors} | ${num(s.cpu.clientUsPerFlow)} µs |`),
  ]
  return `${lines.join('\n')}\n\n_${connections} connections / virtual users, ${seconds} s per phase, median of ${rounds} interleaved rounds, one server process per engine; client and server share the machine's cores._`
}
