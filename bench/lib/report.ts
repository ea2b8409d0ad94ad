import { coreCount, type CpuUse } from './cpu.js'
import type { EngineRun } from './engine-run.js'
import type { BenchOptions, Engine } from './options.js'
import { median, round } from './stats.js'

/** Issue target: login flows/s >= 1/3 of half the floor's req/s (a flow is two requests). */
export const TARGET_RATIO = 1 / 3
/** Above this much CPU taken by processes outside the benchmark, the run is flagged as noisy. */
export const NOISY_OTHER_CORES = 0.25

/** Median cores' worth of CPU per party in a phase; null where not measurable. */
export interface PhaseCpu {
  client: number
  server: number | null
  /** Part of `server`: its main thread, the event loop (1.0 = saturated). */
  serverMainThread: number | null
  postgres: number | null
  other: number | null
  /** Part of `other`: time the hypervisor gave to other guests. */
  steal: number | null
  machineBusy: number | null
}

export interface EngineSummary {
  engine: Engine
  floorRps: number
  flowsPerSecond: number
  /** flows / (floor / 2) */
  ratio: number
  pass: boolean
  flowP50Ms: number
  flowP99Ms: number
  floorP50Ms: number
  floorP99Ms: number
  floorErrors: number
  loginErrors: number
  loginErrorKinds: Record<string, number>
  usersReused: string
  /** Which resource limited the login phase, read from the CPU split. */
  loginBottleneck: string
  cpu: {
    floor: PhaseCpu
    login: PhaseCpu
    clientUsPerFlow: number
    serverUsPerFlow: number | null
    serverUsPerFloorRequest: number | null
  }
  perRound: { floorRps: number; flowsPerSecond: number }[]
}

/**
 * The server handles requests on one thread, so ~1 core of CPU on its main thread with idle CPU
 * left on the machine means its event loop is the limit, not the load generator. Its other
 * threads (libuv's pool for signatures, BBS workers) show in the server's total only.
 */
export function bottleneck(c: PhaseCpu): string {
  if (c.server === null || c.machineBusy === null) return 'unknown (no /proc)'
  if (c.machineBusy >= 0.95)
    return `the whole machine (all cores busy: client ${c.client}, server ${c.server} of which main thread ${c.serverMainThread ?? 'n/a'}${c.postgres === null ? '' : `, postgres ${c.postgres}`})`
  // The main thread also waits (I/O, GC pauses of other threads): from 0.8 core it is the limit.
  const loop = c.serverMainThread ?? c.server
  if (loop >= (c.serverMainThread === null ? 0.9 : 0.8))
    return `the server's event loop (main thread ${loop} cores, server ${c.server}, machine ${Math.round(c.machineBusy * 100)}% busy: the client is not the limit)`
  return 'neither CPU-bound: latency (database, locks, worker queue) or too few connections'
}

export function phaseCpu(uses: CpuUse[]): PhaseCpu {
  const m = (values: (number | undefined)[]) =>
    values.some((v) => v === undefined) ? null : round(median(values as number[]), 2)
  return {
    client: round(median(uses.map((u) => u.clientCores)), 2),
    server: m(uses.map((u) => u.serverCores)),
    serverMainThread: m(uses.map((u) => u.serverMainThreadCores)),
    postgres: m(uses.map((u) => u.postgresCores)),
    other: m(uses.map((u) => u.otherCores)),
    steal: m(uses.map((u) => u.stealCores)),
    machineBusy: m(uses.map((u) => u.machineBusy)),
  }
}

export function summarize(engine: Engine, run: EngineRun): EngineSummary {
  const floors = run.rounds.map((r) => r.floor)
  const logins = run.rounds.map((r) => r.login)
  const floorRps = median(floors.map((f) => f.requestsPerSecond))
  const flowsPerSecond = median(logins.map((l) => l.flowsPerSecond))
  const ratio = flowsPerSecond / (floorRps / 2)
  const floorCpu = phaseCpu(floors.map((f) => f.cpu))
  const loginCpu = phaseCpu(logins.map((l) => l.cpu))
  const perUnit = (cores: number | null, rate: number) => (cores === null ? null : round((cores / rate) * 1e6))
  const errorKinds: Record<string, number> = {}
  for (const l of logins)
    for (const [kind, n] of Object.entries(l.errorKinds)) errorKinds[kind] = (errorKinds[kind] ?? 0) + n
  return {
    engine,
    floorRps: round(floorRps),
    flowsPerSecond: round(flowsPerSecond),
    ratio: round(ratio, 3),
    pass: ratio >= TARGET_RATIO,
    flowP50Ms: round(median(logins.map((l) => l.p50Ms)), 1),
    flowP99Ms: round(median(logins.map((l) => l.p99Ms)), 1),
    floorP50Ms: round(median(floors.map((f) => f.p50Ms)), 1),
    floorP99Ms: round(median(floors.map((f) => f.p99Ms)), 1),
    floorErrors: floors.reduce((n, f) => n + f.errors, 0),
    loginErrors: logins.reduce((n, l) => n + l.errors, 0),
    loginErrorKinds: errorKinds,
    usersReused: `${run.usersReused}/${run.users}`,
    loginBottleneck: bottleneck(loginCpu),
    cpu: {
      floor: floorCpu,
      login: loginCpu,
      clientUsPerFlow: perUnit(loginCpu.client, flowsPerSecond)!,
      serverUsPerFlow: perUnit(loginCpu.server, flowsPerSecond),
      serverUsPerFloorRequest: perUnit(floorCpu.server, floorRps),
    },
    perRound: run.rounds.map((r) => ({
      floorRps: round(r.floor.requestsPerSecond),
      flowsPerSecond: round(r.login.flowsPerSecond),
    })),
  }
}

const pct = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v * 100)}%`)
export const num = (v: number | null) => (v === null ? 'n/a' : v.toLocaleString('en-US'))
export const cpuLine = (c: PhaseCpu) =>
  `client ${c.client}, server ${c.server ?? 'n/a'} (main thread ${c.serverMainThread ?? 'n/a'})${c.postgres === null ? '' : `, postgres ${c.postgres}`}, other ${c.other ?? 'n/a'} (steal ${c.steal ?? 'n/a'}; machine ${pct(c.machineBusy)} busy)`

export function printEngine(s: EngineSummary): void {
  const rows: [string, string][] = [
    [
      'floor GET /api/health/live',
      `${num(s.floorRps)} req/s, p50 ${s.floorP50Ms} ms, p99 ${s.floorP99Ms} ms, errors ${s.floorErrors}`,
    ],
    [
      'login flows',
      `${num(s.flowsPerSecond)} flows/s, errors ${s.loginErrors}${s.loginErrors ? ` ${JSON.stringify(s.loginErrorKinds)}` : ''}`,
    ],
    ['flow latency p50 / p99', `${s.flowP50Ms} ms / ${s.flowP99Ms} ms`],
    ['ratio flows / (floor / 2)', `${s.ratio} (target >= ${round(TARGET_RATIO, 3)}): ${s.pass ? 'PASS' : 'MISS'}`],
    ['per round floor / flows', s.perRound.map((r) => `${r.floorRps} / ${r.flowsPerSecond}`).join(',  ')],
    ['CPU cores, floor phase', cpuLine(s.cpu.floor)],
    ['CPU cores, login phase', cpuLine(s.cpu.login)],
    [
      'CPU per flow: client / server',
      `${num(s.cpu.clientUsPerFlow)} µs / ${num(s.cpu.serverUsPerFlow)} µs (server per floor request: ${num(s.cpu.serverUsPerFloorRequest)} µs)`,
    ],
    ['login phase limited by', s.loginBottleneck],
    ['users reused by later logins', s.usersReused],
  ]
  const width = Math.max(...rows.map(([k]) => k.length))
  console.log(`\n${s.engine} (medians over rounds)`)
  for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`)
  const other = Math.max(s.cpu.floor.other ?? 0, s.cpu.login.other ?? 0)
  if (other > NOISY_OTHER_CORES)
    console.log(
      `  warning: processes outside the benchmark used up to ${other} cores; these numbers are depressed by that noise`,
    )
}

export function markdownTable(
  summaries: EngineSummary[],
  { connections, seconds, rounds }: BenchOptions,
  code: string,
): string {
  const lines = [
    '| Engine | Floor (req/s) | Login flows/s | Ratio flows/(floor/2) | Target ≥ 0.33 | Flow p50 / p99 | Errors | Server CPU per flow / per floor req |',
    '|---|---:|---:|---:|---|---:|---:|---:|',
    ...summaries.map(
      (s) =>
        `| ${s.engine} | ${num(s.floorRps)} | ${num(s.flowsPerSecond)} | ${s.ratio.toFixed(3)} | ${s.pass ? 'PASS' : 'MISS'} | ${s.flowP50Ms} / ${s.flowP99Ms} ms | ${s.loginErrors + s.floorErrors} | ${num(s.cpu.serverUsPerFlow)} / ${num(s.cpu.serverUsPerFloorRequest)} µs |`,
    ),
  ]
  return `${lines.join('\n')}\n\n_\`npm run bench\` at ${code}, ${coreCount()} cores: ${connections} connections / virtual users, ${seconds} s per phase, median of ${rounds} interleaved rounds against one server process per engine; load generator, server and PostgreSQL share the cores._`
}
