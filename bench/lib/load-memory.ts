/**
 * The server's memory and CPU over time: RSS from /proc/<pid>/status (VmRSS), the V8 heap and the
 * event-loop delay from its Prometheus /metrics (prom-client's defaults: heap sizes, external
 * memory, and the loop-delay histogram it resets at every scrape), CPU per party from /proc.
 */
import { readFileSync } from 'node:fs'
import { cpuBetween, cpuSnapshot, type CpuSnapshot } from './cpu.js'
import { JsonClient } from './http-client.js'
import { median } from './stats.js'

export interface MemorySample {
  /** Seconds from the start of the measured period (negative during the warm-up). */
  t: number
  rssMb: number | null
  heapUsedMb: number | null
  heapTotalMb: number | null
  /** V8 heap used right after the latest major GC (the server's own gauge): what is alive. */
  heapAfterMajorGcMb: number | null
  externalMb: number | null
  /** p99 event-loop delay since the previous scrape, ms. */
  loopDelayP99Ms: number | null
  /** Cores' worth of CPU since the previous sample. */
  serverCores: number | null
  serverMainThreadCores: number | null
  postgresCores: number | null
  clientCores: number
  machineBusy: number | null
}

const MB = 1024 * 1024
const mb = (bytes: number | undefined) => (bytes === undefined ? null : Math.round((bytes / MB) * 10) / 10)

export function rssBytes(pid: number): number | undefined {
  try {
    const line = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return line ? Number(line[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

/** The unlabelled samples of a Prometheus text exposition (`name value`), by name. */
export function parseMetrics(text: string): Map<string, number> {
  const values = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*) ([^ ]+)/.exec(line)
    if (match) values.set(match[1]!, Number(match[2]))
  }
  return values
}

export class ServerSampler {
  readonly samples: MemorySample[] = []
  private readonly client: JsonClient
  private previous: CpuSnapshot
  private timer: NodeJS.Timeout | undefined
  private inFlight: Promise<void> = Promise.resolve()

  /** `origin`: performance.now() of the measured period's start. */
  constructor(
    baseUrl: string,
    private readonly pid: number,
    private readonly ownPostgres: boolean,
    private readonly origin: number,
  ) {
    this.client = new JsonClient(baseUrl, 1, 5000)
    this.previous = cpuSnapshot(pid)
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.inFlight = this.inFlight.then(() => this.sample())
    }, intervalMs)
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.inFlight
    await this.sample()
    this.client.close()
  }

  private async sample(): Promise<void> {
    const t = (performance.now() - this.origin) / 1000
    let metrics = new Map<string, number>()
    try {
      const res = await this.client.get('/metrics')
      if (res.status === 200) metrics = parseMetrics(res.body)
    } catch {
      // The server is too busy or gone; the /proc figures still tell the story.
    }
    const now = cpuSnapshot(this.pid)
    const cpu = cpuBetween(this.previous, now, this.ownPostgres)
    this.previous = now
    const lag = metrics.get('nodejs_eventloop_lag_p99_seconds')
    this.samples.push({
      t: Math.round(t * 10) / 10,
      rssMb: mb(rssBytes(this.pid) ?? metrics.get('process_resident_memory_bytes')),
      heapUsedMb: mb(metrics.get('nodejs_heap_size_used_bytes')),
      heapTotalMb: mb(metrics.get('nodejs_heap_size_total_bytes')),
      // 0 until the first major collection (an unset gauge).
      heapAfterMajorGcMb: mb(metrics.get('nodejs_heap_used_after_major_gc_bytes') || undefined),
      externalMb: mb(metrics.get('nodejs_external_memory_bytes')),
      loopDelayP99Ms: lag === undefined ? null : Math.round(lag * 10_000) / 10,
      serverCores: round2(cpu.serverCores),
      serverMainThreadCores: round2(cpu.serverMainThreadCores),
      postgresCores: round2(cpu.postgresCores),
      clientCores: round2(cpu.clientCores)!,
      machineBusy: round2(cpu.machineBusy),
    })
  }
}

const round2 = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? null : Math.round(v * 100) / 100)

export interface MemoryTrend {
  /** Medians of the first and last quarter of the measured period. */
  firstQuarterMb: number | null
  lastQuarterMb: number | null
  /** (last - first) / first. */
  growth: number | null
  /**
   * Minima of the first and last quarter: for the V8 heap, the floor after major collections,
   * i.e. what is still alive. The heap saw-tooths between collections (tens of MB a minute
   * allocated and freed), so medians depend on where the samples fall in the GC cycle; a leak
   * shows as a rising floor.
   */
  firstQuarterFloorMb: number | null
  lastQuarterFloorMb: number | null
  /** Least-squares slope over the measured period. */
  slopeMbPerMinute: number | null
  minMb: number | null
  maxMb: number | null
}

/** Taken in the measured period: after the warm-up, before the in-flight flows drained. */
export const measured = (s: MemorySample, seconds: number) => s.t >= 0 && s.t <= seconds

/** Trend of one series over the measured samples. */
export function trend(samples: MemorySample[], seconds: number, pick: (s: MemorySample) => number | null): MemoryTrend {
  const points = samples
    .filter((s) => measured(s, seconds))
    .flatMap((s) => {
      const v = pick(s)
      return v === null ? [] : [{ t: s.t, v }]
    })
  if (points.length < 2)
    return {
      firstQuarterMb: null,
      lastQuarterMb: null,
      growth: null,
      firstQuarterFloorMb: null,
      lastQuarterFloorMb: null,
      slopeMbPerMinute: null,
      minMb: null,
      maxMb: null,
    }
  const med = (vs: number[]) => (vs.length ? median(vs) : null)
  const firstValues = points.filter((p) => p.t < seconds / 4).map((p) => p.v)
  const lastValues = points.filter((p) => p.t >= (3 * seconds) / 4).map((p) => p.v)
  const first = med(firstValues)
  const last = med(lastValues)
  const n = points.length
  const mt = points.reduce((a, p) => a + p.t, 0) / n
  const mv = points.reduce((a, p) => a + p.v, 0) / n
  const cov = points.reduce((a, p) => a + (p.t - mt) * (p.v - mv), 0)
  const vt = points.reduce((a, p) => a + (p.t - mt) ** 2, 0)
  const r1 = (v: number) => Math.round(v * 10) / 10
  return {
    firstQuarterMb: first === null ? null : r1(first),
    lastQuarterMb: last === null ? null : r1(last),
    growth: first === null || last === null ? null : Math.round(((last - first) / first) * 1000) / 1000,
    firstQuarterFloorMb: firstValues.length ? r1(Math.min(...firstValues)) : null,
    lastQuarterFloorMb: lastValues.length ? r1(Math.min(...lastValues)) : null,
    slopeMbPerMinute: vt === 0 ? null : Math.round((cov / vt) * 60 * 100) / 100,
    minMb: r1(Math.min(...points.map((p) => p.v))),
    maxMb: r1(Math.max(...points.map((p) => p.v))),
  }
}
