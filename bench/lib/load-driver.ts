/**
 * The closed-loop load: every virtual user runs lifecycle flows back to back, through a warm-up
 * and then the measured period, without a pause between them. A flow counts when it completes
 * inside the measured period (one that started in the warm-up included: the load is steady);
 * flows still in flight at the end are finished but not counted. Errors are counted by the time
 * they happen: in the warm-up, or from the start of the measured period on (its tail included).
 */
import { sleep } from './cleanup.js'
import { cpuBetween, cpuSnapshot, type CpuSnapshot, type CpuUse } from './cpu.js'
import type { JsonClient } from './http-client.js'
import { FLOW_STEPS, FlowError, partiesFor, runFlow, type Parties } from './load-flow.js'
import { LatencyHistogram } from './load-histogram.js'
import { ServerSampler, type MemorySample } from './load-memory.js'
import type { LoadMode } from './load-options.js'
import type { ServerProcess } from './server-process.js'

export interface LoadRunConfig {
  mode: LoadMode
  /** Virtual users: the first `concurrency` entries of the parties given. */
  concurrency: number
  warmupSeconds: number
  seconds: number
  windowSeconds: number
  sampleSeconds: number
  freshDids: boolean
  ownPostgres: boolean
  /** Progress line every this many seconds. */
  progressSeconds: number
}

export interface FirstError {
  /** Seconds from the start of the measured period. */
  t: number
  kind: string
  detail: string
}

export interface LoadRunResult {
  config: LoadRunConfig
  flows: number
  flowHistogram: LatencyHistogram
  stepHistograms: LatencyHistogram[]
  windows: Array<{ flows: number; errors: number; histogram: LatencyHistogram }>
  errors: { warmup: number; measured: number; kinds: Record<string, number>; first: FirstError[] }
  /** Machine-wide CPU over the measured period. */
  cpu: CpuUse
  samples: MemorySample[]
  /** The measured period on the clock V8 stamps --cpu-prof samples with (process.hrtime, µs). */
  measuredHrUs: [number, number]
}

const FIRST_ERRORS_KEPT = 10
const ERROR_PAUSE_MS = 100

/** `log(line)` receives progress lines. */
export async function runLoad(
  server: ServerProcess,
  client: JsonClient,
  parties: Parties[],
  config: LoadRunConfig,
  log: (line: string) => void,
): Promise<LoadRunResult> {
  const steps = FLOW_STEPS[config.mode]
  const users = parties.slice(0, config.concurrency)
  if (users.length < config.concurrency)
    throw new Error(`${config.concurrency} virtual users asked, ${parties.length} set up`)
  const start = performance.now()
  const startHrUs = Number(process.hrtime.bigint() / 1000n)
  const measureStart = start + config.warmupSeconds * 1000
  const measureEnd = measureStart + config.seconds * 1000
  const windowMs = config.windowSeconds * 1000
  const windowCount = Math.floor(config.seconds / config.windowSeconds)
  const result: Omit<LoadRunResult, 'cpu' | 'samples' | 'measuredHrUs'> = {
    config,
    flows: 0,
    flowHistogram: new LatencyHistogram(),
    stepHistograms: steps.map(() => new LatencyHistogram()),
    windows: Array.from({ length: windowCount }, () => ({ flows: 0, errors: 0, histogram: new LatencyHistogram() })),
    errors: { warmup: 0, measured: 0, kinds: {}, first: [] },
  }
  const windowOf = (at: number) => {
    const w = Math.floor((at - measureStart) / windowMs)
    return w >= 0 && w < windowCount ? result.windows[w] : undefined
  }

  const sampler = new ServerSampler(server.baseUrl, server.pid, config.ownPostgres, measureStart)
  sampler.start(config.sampleSeconds * 1000)
  let cpuAtStart: CpuSnapshot | undefined
  let cpuAtEnd: CpuSnapshot | undefined
  const timers = [
    setTimeout(() => (cpuAtStart = cpuSnapshot(server.pid)), Math.max(0, measureStart - performance.now())),
    setTimeout(() => (cpuAtEnd = cpuSnapshot(server.pid)), Math.max(0, measureEnd - performance.now())),
  ]
  let lastFlows = 0
  let lastErrors = 0
  let lastAt = start
  const progress = setInterval(() => {
    const now = performance.now()
    const flows = result.flows
    const errors = result.errors.warmup + result.errors.measured
    const sample = sampler.samples.at(-1)
    const phase = now < measureStart ? 'warm-up' : 'measured'
    log(
      `    ${((now - measureStart) / 1000).toFixed(0).padStart(5)} s (${phase}): ${phase === 'warm-up' ? '-' : ((flows - lastFlows) / ((now - Math.max(lastAt, measureStart)) / 1000)).toFixed(1)} flows/s, errors +${errors - lastErrors}, server RSS ${sample?.rssMb ?? '?'} MB, heap ${sample?.heapUsedMb ?? '?'} MB, CPU server ${sample?.serverCores ?? '?'} / machine ${sample?.machineBusy === null || sample === undefined ? '?' : Math.round(sample.machineBusy * 100)}%`,
    )
    lastFlows = flows
    lastErrors = errors
    lastAt = now
  }, config.progressSeconds * 1000)

  let next = 0
  const loop = async (base: Parties) => {
    const timing = new Float64Array(steps.length)
    while (performance.now() < measureEnd) {
      const n = next++
      const began = performance.now()
      try {
        await runFlow(client, config.mode, partiesFor(base, config.freshDids), n, timing)
        const ended = performance.now()
        if (ended < measureStart || ended > measureEnd) continue
        const ms = ended - began
        result.flows++
        result.flowHistogram.record(ms)
        for (let i = 0; i < steps.length; i++) result.stepHistograms[i]!.record(timing[i]!)
        const w = windowOf(ended)
        if (w) {
          w.flows++
          w.histogram.record(ms)
        }
      } catch (error) {
        // Errors of flows finishing after the end count too: nothing is cut short, every error is real.
        const at = performance.now()
        const kind = error instanceof FlowError ? error.kind : `unexpected ${String(error)}`
        const detail =
          error instanceof FlowError
            ? error.detail
            : error instanceof Error
              ? (error.stack ?? error.message)
              : String(error)
        if (at < measureStart) result.errors.warmup++
        else result.errors.measured++
        result.errors.kinds[kind] = (result.errors.kinds[kind] ?? 0) + 1
        const w = windowOf(at)
        if (w) w.errors++
        if (result.errors.first.length < FIRST_ERRORS_KEPT)
          result.errors.first.push({ t: Math.round((at - measureStart) / 100) / 10, kind, detail })
        // A server that refuses at once (down, restarting) must not turn the loop into a busy spin.
        await sleep(ERROR_PAUSE_MS)
      }
    }
  }
  try {
    await Promise.all(users.map(loop))
  } finally {
    clearInterval(progress)
    for (const timer of timers) clearTimeout(timer)
    await sampler.stop()
  }
  // The timers fire late on a busy client; one that has not fired yet falls back to now.
  const cpu = cpuBetween(cpuAtStart ?? cpuSnapshot(server.pid), cpuAtEnd ?? cpuSnapshot(server.pid), config.ownPostgres)
  const hrUs = (at: number) => Math.round(startHrUs + (at - start) * 1000)
  return { ...result, cpu, samples: sampler.samples, measuredHrUs: [hrUs(measureStart), hrUs(measureEnd)] }
}

/**
 * One flow per virtual user before any load, failing the run on the first error: it checks the
 * set-up, creates every user row and each holder's ML-KEM pair (a one-off on a holder's first
 * credential), so the warm-up and the measured period see returning users only.
 */
export async function enrollParties(client: JsonClient, mode: LoadMode, parties: Parties[]): Promise<void> {
  const timing = new Float64Array(FLOW_STEPS[mode].length)
  await Promise.all(
    parties.map(async (p, i) => {
      try {
        await runFlow(client, mode, p, i, timing)
      } catch (error) {
        throw new Error(`enrolment flow failed: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        })
      }
    }),
  )
}
