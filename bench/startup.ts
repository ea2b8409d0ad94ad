/**
 * `npm run bench:start`: how long the service takes from process start to its first answer on
 * GET /api/health, the way `npm start` runs it (node dist/main.js, compiled at install) and, for
 * comparison, from source through tsx (how `npm start` ran before issue 35). Each mode on a new
 * data directory (PGlite from the build's template, or initdb and every migration from source)
 * and on an existing one (a restart), runs interleaved, medians reported with each start's phases
 * as the server logs them. Not a test: targets are printed, never enforced. Writes
 * bench/results/latest-startup.json.
 *
 * BENCH_START_RUNS (5) runs per case; BENCH_START_MODES (build,tsx).
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { sleep, trackChild } from './lib/cleanup.js'
import { getStatus } from './lib/http-client.js'
import type { ServerMode } from './lib/options.js'
import { codeVersion, prepareServer, projectRoot } from './lib/server-process.js'
import { median } from './lib/stats.js'

const RUNS = Math.max(1, Number(process.env.BENCH_START_RUNS) || 5)
const MODES = (process.env.BENCH_START_MODES ?? 'build,tsx').split(',').map((m) => m.trim()) as ServerMode[]
/** Issue 35: answering within these on this machine (2 cores). */
const TARGET_MS = { fresh: 20_000, existing: 10_000 }

type DataDirKind = 'fresh' | 'existing'

interface Start {
  ms: number
  phases: Record<string, number>
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/**
 * One start: spawn, poll /api/health every 25 ms until 200, read the phase lines, stop (SIGTERM).
 * A fixed PUBLIC_BASE_URL: the database records it, and each start listens on another free port.
 */
async function startOnce(entry: string[], dataDir: string): Promise<Start> {
  const port = await freePort()
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    MASTER_KEY: masterKey,
    PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
  }
  const started = performance.now()
  const child = spawn(process.execPath, entry, { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const untrack = trackChild(child)
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  try {
    while ((await getStatus(`http://127.0.0.1:${port}/api/health`, 2000)) !== 200) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output.slice(-3000)}`)
      if (performance.now() - started > 300_000) throw new Error(`no answer after 300 s:\n${output.slice(-3000)}`)
      await sleep(25)
    }
    const ms = performance.now() - started
    const phases: Record<string, number> = {}
    for (const line of output.split('\n')) {
      if (!line.startsWith('{')) continue
      const entry = JSON.parse(line) as { phase?: string; ms?: number; from?: string }
      if (entry.phase && typeof entry.ms === 'number')
        phases[entry.from ? `${entry.phase} (${entry.from})` : entry.phase] = entry.ms
    }
    return { ms, phases }
  } finally {
    child.kill('SIGTERM')
    const graceful = await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)])
    if (!graceful) {
      child.kill('SIGKILL')
      await exited
    }
    untrack()
  }
}

/** Per phase, the median over the runs that logged it. */
function medianPhases(starts: Start[]): Record<string, number> {
  const names = [...new Set(starts.flatMap((s) => Object.keys(s.phases)))]
  return Object.fromEntries(
    names.map((name) => [name, Math.round(median(starts.flatMap((s) => (name in s.phases ? [s.phases[name]!] : []))))]),
  )
}

const masterKey = randomBytes(32).toString('hex')
const root = await mkdtemp(path.join(os.tmpdir(), 'bench-start-'))
const loadBefore = os.loadavg()
const results: Array<{
  mode: ServerMode
  dataDir: DataDirKind
  medianMs: number
  minMs: number
  maxMs: number
  targetMs: number
  runsMs: number[]
  phasesMedianMs: Record<string, number>
}> = []
try {
  for (const mode of MODES) {
    const build = await prepareServer(mode)
    try {
      // The existing directory: made by one start, not measured.
      const existing = path.join(root, `${mode}-existing`)
      await startOnce(build.entry, existing)
      const starts: Record<DataDirKind, Start[]> = { fresh: [], existing: [] }
      for (let run = 0; run < RUNS; run++) {
        const fresh = path.join(root, `${mode}-fresh-${run}`)
        await mkdir(path.dirname(fresh), { recursive: true })
        starts.fresh.push(await startOnce(build.entry, fresh))
        await rm(fresh, { recursive: true, force: true })
        starts.existing.push(await startOnce(build.entry, existing))
        console.log(
          `${mode} run ${run + 1}/${RUNS}: fresh ${(starts.fresh.at(-1)!.ms / 1000).toFixed(1)} s, existing ${(starts.existing.at(-1)!.ms / 1000).toFixed(1)} s`,
        )
      }
      for (const kind of ['fresh', 'existing'] as const) {
        const runsMs = starts[kind].map((s) => Math.round(s.ms))
        results.push({
          mode,
          dataDir: kind,
          medianMs: Math.round(median(runsMs)),
          minMs: Math.min(...runsMs),
          maxMs: Math.max(...runsMs),
          targetMs: TARGET_MS[kind],
          runsMs,
          phasesMedianMs: medianPhases(starts[kind]),
        })
      }
    } finally {
      await build.dispose()
    }
  }
} finally {
  await rm(root, { recursive: true, force: true })
}

const loadAfter = os.loadavg()
console.log(
  `\nStart to first answer of GET /api/health, median of ${RUNS} (load average ${loadBefore[0]!.toFixed(1)} before, ${loadAfter[0]!.toFixed(1)} after, ${os.cpus().length} cores)\n`,
)
console.log('| how | data directory | median | min-max | target | phases (median ms) |')
console.log('|---|---|---|---|---|---|')
for (const r of results) {
  const how = r.mode === 'build' ? 'node dist/main.js (npm start)' : 'tsx src/main.ts (from source)'
  const phases = Object.entries(r.phasesMedianMs)
    .map(([name, ms]) => `${name} ${ms}`)
    .join(', ')
  console.log(
    `| ${how} | ${r.dataDir} | ${(r.medianMs / 1000).toFixed(1)} s | ${(r.minMs / 1000).toFixed(1)}-${(r.maxMs / 1000).toFixed(1)} s | ${r.targetMs / 1000} s${r.mode === 'build' ? (r.medianMs <= r.targetMs ? ' (met)' : ' (missed)') : ''} | ${phases} |`,
  )
}
const file = path.join(projectRoot, 'bench/results/latest-startup.json')
await writeFile(
  file,
  `${JSON.stringify({ date: new Date().toISOString(), code: codeVersion(), machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, loadAverage: { before: loadBefore, after: loadAfter } }, settings: { runs: RUNS, modes: MODES }, results }, null, 2)}\n`,
)
console.log(`\nwrote ${path.relative(process.cwd(), file)}`)
process.exit(0)
