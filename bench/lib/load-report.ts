import { coreCount } from './cpu.js'
import type { LoadRunResult } from './load-driver.js'
import { FLOW_STEPS, requestsPerFlow } from './load-flow.js'
import { measured, trend, type MemorySample, type MemoryTrend } from './load-memory.js'
import type { LoadMode } from './load-options.js'
import type { Engine } from './options.js'
import type { RawProofCost } from './proofs-run.js'
import { bottleneck, cpuLine, NOISY_OTHER_CORES, num, phaseCpu, type PhaseCpu } from './report.js'
import { median, round } from './stats.js'

/** Issue 6 target: full JWT-VC lifecycles on PostgreSQL, 2 cores (ACA-Py publishes about 7/s on 16). */
export const TARGET_FLOWS_PER_SECOND = 100
/**
 * "Flat" memory: from the first to the last quarter of the measured period, the server's RSS and
 * its live V8 heap (the heap used right after each major collection, the server's
 * nodejs_heap_used_after_major_gc_bytes) grow by at most 5 % or 5 MB, whichever is larger
 * (medians of the quarters). A leak raises both; the heap's saw-tooth between collections moves
 * neither. The lowest heap-used sample of a quarter (the fallback when the gauge is missing) is
 * not such a measure: it depends on how soon after a collection a sample lands, which on PGlite
 * (a heap swinging between about 80 and 300 MB) read as +7 MB over a flat 30-minute soak.
 */
export const FLAT_MAX_GROWTH = 0.05
export const FLAT_MAX_MB = 5

/** The live heap, first and last quarter: medians after major GCs, or the heap-used floor without the gauge. */
export function liveHeap(memory: { heapUsed: MemoryTrend; heapAfterMajorGc: MemoryTrend }): {
  first: number | null
  last: number | null
  measure: 'after major GC' | 'floor'
} {
  const gc = memory.heapAfterMajorGc
  if (gc.firstQuarterMb !== null && gc.lastQuarterMb !== null)
    return { first: gc.firstQuarterMb, last: gc.lastQuarterMb, measure: 'after major GC' }
  return { first: memory.heapUsed.firstQuarterFloorMb, last: memory.heapUsed.lastQuarterFloorMb, measure: 'floor' }
}

export interface StepSummary {
  step: string
  p50Ms: number
  p99Ms: number
  meanMs: number
  /** Mean step time / mean flow time. */
  share: number
}

export interface LoadSummary {
  engine: Engine
  mode: LoadMode
  concurrency: number
  seconds: number
  warmupSeconds: number
  windowSeconds: number
  freshDids: boolean
  sharedIssuer: boolean
  flows: number
  /** Median over windows of completed flows per second. */
  flowsPerSecond: number
  /** Completed flows / measured seconds. */
  flowsPerSecondOverall: number
  requestsPerSecond: number
  flowP50Ms: number
  flowP99Ms: number
  flowMeanMs: number
  flowMaxMs: number
  steps: StepSummary[]
  windows: Array<{ t: number; flows: number; flowsPerSecond: number; p50Ms: number; p99Ms: number; errors: number }>
  errors: LoadRunResult['errors']
  cpu: PhaseCpu
  bottleneck: string
  serverCpuMsPerFlow: number | null
  serverMainThreadMsPerFlow: number | null
  memory: {
    rss: MemoryTrend
    heapUsed: MemoryTrend
    heapAfterMajorGc: MemoryTrend
    /** Median of the per-sample event-loop delay p99 over the measured period, ms. */
    loopDelayP99Ms: number | null
    flat: boolean | null
    samples: MemorySample[]
  }
  /** BBS mode: flows/s beside what the raw proof cost alone allows on every core. */
  proofs?: {
    rawDeriveMs: number
    rawVerifyMs: number
    ceilingFlowsPerSecond: number
    ratio: number
    /** (raw derive + verify) / server CPU per flow: near 1, the service costs little beyond its proofs. Steadier than `ratio` on a shared machine. */
    rawShareOfServerCpu: number | null
  }
  /** PostgreSQL + JWT only: flows/s >= TARGET_FLOWS_PER_SECOND. */
  targetPass: boolean | null
}

const r1 = (v: number) => round(v, 1)

function isFlat(first: number | null, last: number | null): boolean | null {
  if (first === null || last === null) return null
  return last - first <= Math.max(FLAT_MAX_MB, first * FLAT_MAX_GROWTH)
}

export function summarizeLoad(
  engine: Engine,
  run: LoadRunResult,
  sharedIssuer: boolean,
  raw: RawProofCost | undefined,
): LoadSummary {
  const { config } = run
  const steps = FLOW_STEPS[config.mode]
  const windows = run.windows.map((w, i) => ({
    t: (i + 1) * config.windowSeconds,
    flows: w.flows,
    flowsPerSecond: r1(w.flows / config.windowSeconds),
    p50Ms: r1(w.histogram.percentile(50)),
    p99Ms: r1(w.histogram.percentile(99)),
    errors: w.errors,
  }))
  // Of the exact rates: the windows' 0.1 rounding would be 1 % of a BBS flow rate.
  const flowsPerSecond = median(run.windows.map((w) => w.flows / config.windowSeconds))
  const overall = run.flows / config.seconds
  const meanFlow = run.flowHistogram.mean()
  const cpu = phaseCpu([run.cpu])
  const perFlow = (cores: number | null) =>
    cores === null || overall === 0 ? null : round((cores / overall) * 1000, 2)
  const rss = trend(run.samples, config.seconds, (s) => s.rssMb)
  const heapUsed = trend(run.samples, config.seconds, (s) => s.heapUsedMb)
  const rssFlat = isFlat(rss.firstQuarterMb, rss.lastQuarterMb)
  const heapAfterMajorGc = trend(run.samples, config.seconds, (s) => s.heapAfterMajorGcMb)
  const live = liveHeap({ heapUsed, heapAfterMajorGc })
  const heapFlat = isFlat(live.first, live.last)
  const lags = run.samples
    .filter((s) => measured(s, config.seconds) && s.loopDelayP99Ms !== null)
    .map((s) => s.loopDelayP99Ms!)
  let proofs: LoadSummary['proofs']
  if (config.mode === 'bbs' && raw) {
    const ceiling = (coreCount() * 1000) / (raw.deriveMs + raw.verifyMs)
    const serverMs = perFlow(cpu.server)
    proofs = {
      rawDeriveMs: raw.deriveMs,
      rawVerifyMs: raw.verifyMs,
      ceilingFlowsPerSecond: round(ceiling, 2),
      ratio: round(flowsPerSecond / ceiling, 3),
      rawShareOfServerCpu: serverMs ? round((raw.deriveMs + raw.verifyMs) / serverMs, 3) : null,
    }
  }
  return {
    engine,
    mode: config.mode,
    concurrency: config.concurrency,
    seconds: config.seconds,
    warmupSeconds: config.warmupSeconds,
    windowSeconds: config.windowSeconds,
    freshDids: config.freshDids,
    sharedIssuer,
    flows: run.flows,
    flowsPerSecond: round(flowsPerSecond, flowsPerSecond < 10 ? 2 : 1),
    flowsPerSecondOverall: round(overall, overall < 10 ? 2 : 1),
    requestsPerSecond: round(overall * requestsPerFlow(config.mode)),
    flowP50Ms: r1(run.flowHistogram.percentile(50)),
    flowP99Ms: r1(run.flowHistogram.percentile(99)),
    flowMeanMs: r1(meanFlow),
    flowMaxMs: r1(run.flowHistogram.maxMs),
    steps: steps.map((step, i) => {
      const h = run.stepHistograms[i]!
      return {
        step,
        p50Ms: round(h.percentile(50), 2),
        p99Ms: round(h.percentile(99), 2),
        meanMs: round(h.mean(), 2),
        share: round(h.mean() / meanFlow, 3),
      }
    }),
    windows,
    errors: run.errors,
    cpu,
    bottleneck: bottleneck(cpu),
    serverCpuMsPerFlow: perFlow(cpu.server),
    serverMainThreadMsPerFlow: perFlow(cpu.serverMainThread),
    memory: {
      rss,
      heapUsed,
      heapAfterMajorGc,
      loopDelayP99Ms: lags.length ? r1(median(lags)) : null,
      flat: rssFlat === null || heapFlat === null ? null : rssFlat && heapFlat,
      samples: run.samples,
    },
    ...(proofs ? { proofs } : {}),
    targetPass: engine === 'postgres' && config.mode === 'jwt' ? flowsPerSecond >= TARGET_FLOWS_PER_SECOND : null,
  }
}

const ENGINE_LABEL: Record<Engine, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' }
const MODE_LABEL: Record<LoadMode, string> = { jwt: 'JWT-VC', bbs: 'BBS + predicate' }
const pct = (v: number | null) => (v === null ? 'n/a' : `${v >= 0 ? '+' : ''}${round(v * 100, 1)}%`)
const trendLine = (t: MemoryTrend) =>
  t.firstQuarterMb === null
    ? 'n/a'
    : `median ${t.firstQuarterMb} -> ${t.lastQuarterMb} MB (${pct(t.growth)}), floor ${t.firstQuarterFloorMb} -> ${t.lastQuarterFloorMb} MB; slope ${t.slopeMbPerMinute} MB/min; range ${t.minMb}..${t.maxMb}`

export function printLoad(s: LoadSummary, soak: boolean): void {
  const rows: [string, string][] = [
    [
      `flows/s (median of ${s.windows.length} × ${s.windowSeconds} s)`,
      `${num(s.flowsPerSecond)} (overall ${num(s.flowsPerSecondOverall)}; ${num(s.requestsPerSecond)} req/s; windows ${Math.min(...s.windows.map((w) => w.flowsPerSecond))}..${Math.max(...s.windows.map((w) => w.flowsPerSecond))})`,
    ],
    ['flow latency p50 / p99 / max', `${s.flowP50Ms} / ${s.flowP99Ms} / ${s.flowMaxMs} ms (${s.flows} flows)`],
    [
      'errors',
      `${s.errors.measured} measured, ${s.errors.warmup} in the warm-up${Object.keys(s.errors.kinds).length ? ` ${JSON.stringify(s.errors.kinds)}` : ''}`,
    ],
  ]
  if (s.targetPass !== null) rows.push([`target >= ${TARGET_FLOWS_PER_SECOND} flows/s`, s.targetPass ? 'PASS' : 'MISS'])
  if (s.proofs) {
    rows.push([
      'raw proof derive + verify',
      `${s.proofs.rawDeriveMs} + ${s.proofs.rawVerifyMs} ms (one thread, this run)`,
    ])
    rows.push([
      'raw-proof ceiling',
      `${s.proofs.ceilingFlowsPerSecond} flows/s on ${coreCount()} cores; flows/s are ${s.proofs.ratio} of it`,
    ])
    rows.push([
      'raw proofs / server CPU per flow',
      `${s.proofs.rawShareOfServerCpu ?? 'n/a'} (the rest: issuance with its BBS signature, HTTP, database)`,
    ])
  }
  rows.push(
    ['CPU cores (measured period)', cpuLine(s.cpu)],
    [
      'server CPU per flow',
      `${s.serverCpuMsPerFlow ?? 'n/a'} ms (main thread ${s.serverMainThreadMsPerFlow ?? 'n/a'} ms)`,
    ],
    ['limited by', s.bottleneck],
    ['server RSS, 1st -> 4th quarter', trendLine(s.memory.rss)],
    ['V8 heap used, 1st -> 4th quarter', trendLine(s.memory.heapUsed)],
    ['V8 heap after major GCs', trendLine(s.memory.heapAfterMajorGc)],
    [
      'memory verdict',
      `${s.memory.flat === null ? 'n/a' : s.memory.flat ? 'flat' : 'GROWING'} (RSS median and live heap (${liveHeap(s.memory).measure}) each +<= ${FLAT_MAX_GROWTH * 100}% or ${FLAT_MAX_MB} MB)${soak ? '' : '; a short run: indicative only, --soak decides'}`,
    ],
    [
      'event-loop delay p99',
      s.memory.loopDelayP99Ms === null ? 'n/a' : `${s.memory.loopDelayP99Ms} ms (median over samples)`,
    ],
  )
  const width = Math.max(...rows.map(([k]) => k.length))
  console.log(
    `\n${ENGINE_LABEL[s.engine]} / ${MODE_LABEL[s.mode]}: ${s.concurrency} virtual users, ${s.seconds} s measured after ${s.warmupSeconds} s warm-up${s.freshDids ? ', fresh holder/verifier DIDs per flow' : ''}${s.sharedIssuer ? ', one shared issuer' : ''}`,
  )
  for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`)
  console.log(
    `  ${'step'.padEnd(16)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)} ${'mean ms'.padStart(9)} ${'share'.padStart(6)}`,
  )
  for (const st of s.steps)
    console.log(
      `  ${st.step.padEnd(16)} ${st.p50Ms.toFixed(1).padStart(9)} ${st.p99Ms.toFixed(1).padStart(9)} ${st.meanMs.toFixed(1).padStart(9)} ${`${Math.round(st.share * 100)}%`.padStart(6)}`,
    )
  for (const e of s.errors.first.slice(0, 5))
    console.log(`  first error at ${e.t} s: ${e.kind}: ${e.detail.slice(0, 200)}`)
  if ((s.cpu.other ?? 0) > NOISY_OTHER_CORES)
    console.log(
      `  warning: processes outside the benchmark used ${s.cpu.other} cores; these numbers are depressed by that noise`,
    )
}

export function loadMarkdown(summaries: LoadSummary[], code: string, soak: boolean): string {
  const lines = [
    '| Engine | Credential | Virtual users | Flows/s | Flow p50 / p99 | Errors | Server RSS, median 1st → 4th quarter | Live heap 1st → 4th quarter | Memory | Machine busy | Target |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|---:|---|',
    ...summaries.map((s) => {
      const target =
        s.targetPass === null
          ? s.proofs
            ? `${s.proofs.ratio} of the raw-proof ceiling (${s.proofs.ceilingFlowsPerSecond}/s)`
            : ''
          : `≥ ${TARGET_FLOWS_PER_SECOND}: ${s.targetPass ? 'PASS' : 'MISS'}`
      const { rss } = s.memory
      const m = (a: number | null, b: number | null) => (a === null ? 'n/a' : `${a} → ${b} MB`)
      return `| ${ENGINE_LABEL[s.engine]} | ${MODE_LABEL[s.mode]} | ${s.concurrency} | ${num(s.flowsPerSecond)} | ${s.flowP50Ms} / ${s.flowP99Ms} ms | ${s.errors.measured + s.errors.warmup} | ${m(rss.firstQuarterMb, rss.lastQuarterMb)} | ${m(liveHeap(s.memory).first, liveHeap(s.memory).last)} | ${s.memory.flat === null ? 'n/a' : s.memory.flat ? 'flat' : 'growing'} | ${s.cpu.machineBusy === null ? 'n/a' : `${Math.round(s.cpu.machineBusy * 100)}%`} | ${target} |`
    }),
  ]
  const s0 = summaries[0]
  const windows = [...new Set(summaries.map((s) => `${s.windowSeconds} s (${MODE_LABEL[s.mode]})`))].join(', ')
  const settings = s0
    ? `${s0.seconds} s measured after ${s0.warmupSeconds} s warm-up, flows/s the median of ${windows} windows`
    : ''
  return `${lines.join('\n')}\n\n_\`npm run bench:load${soak ? ' -- --soak' : ''}\` at ${code}, ${coreCount()} cores: ${settings}; one flow = 3 logins + issue + request + inbox (+ derive proof) + approve + verify + revoke; load generator, server and PostgreSQL share the cores._`
}

export interface SweepPoint {
  concurrency: number
  flowsPerSecond: number
  flowP50Ms: number
  flowP99Ms: number
  errors: number
  machineBusy: number | null
  serverMainThread: number | null
}

export const sweepPoint = (s: LoadSummary): SweepPoint => ({
  concurrency: s.concurrency,
  flowsPerSecond: s.flowsPerSecond,
  flowP50Ms: s.flowP50Ms,
  flowP99Ms: s.flowP99Ms,
  errors: s.errors.measured + s.errors.warmup,
  machineBusy: s.cpu.machineBusy,
  serverMainThread: s.cpu.serverMainThread,
})

export function printSweep(engine: Engine, mode: LoadMode, points: SweepPoint[]): void {
  console.log(`\n${ENGINE_LABEL[engine]} / ${MODE_LABEL[mode]}: concurrency sweep`)
  console.log(
    `  ${'VUs'.padStart(5)} ${'flows/s'.padStart(9)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)} ${'errors'.padStart(7)} ${'machine'.padStart(8)} ${'main thr'.padStart(9)}`,
  )
  for (const p of points) {
    console.log(
      `  ${String(p.concurrency).padStart(5)} ${String(p.flowsPerSecond).padStart(9)} ${p.flowP50Ms.toFixed(1).padStart(9)} ${p.flowP99Ms.toFixed(1).padStart(9)} ${String(p.errors).padStart(7)} ${(p.machineBusy === null ? 'n/a' : `${Math.round(p.machineBusy * 100)}%`).padStart(8)} ${String(p.serverMainThread ?? 'n/a').padStart(9)}`,
    )
  }
}
