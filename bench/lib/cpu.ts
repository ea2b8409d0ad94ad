import { readdirSync, readFileSync } from 'node:fs'
import { cpus } from 'node:os'

/**
 * CPU accounting for the parties sharing this machine: the load generator (this process), the
 * server process, local PostgreSQL, and everything else (other tenants; steal time when the
 * hypervisor runs someone else). Linux /proc counters are in USER_HZ ticks, 100 per second on
 * every Linux ABI. Without /proc (not Linux) only the client's share is known.
 */
const TICKS_PER_SECOND = 100

export interface CpuSnapshot {
  at: number
  self: number
  server: number | undefined
  /** The server's main thread alone (its event loop); `server` adds worker and libuv threads. */
  serverMain: number | undefined
  /** Every server thread but the main one, by id (Node names none, so the busiest is picked afterwards). */
  serverThreads: Map<number, number>
  /** Per pid, because backends come and go (the pool closes idle connections). */
  postgres: Map<number, number>
  machine: { busy: number; steal: number; total: number } | undefined
}

export function cpuSnapshot(serverPid: number): CpuSnapshot {
  const usage = process.cpuUsage()
  return {
    at: performance.now() / 1000,
    self: (usage.user + usage.system) / 1e6,
    server: processCpuSeconds(serverPid),
    serverMain: processCpuSeconds(serverPid, serverPid),
    serverThreads: threadCpuSeconds(serverPid),
    postgres: postgresCpuSeconds(),
    machine: machineSeconds(),
  }
}

/** Cores' worth of CPU used on average: 1.0 is one core fully busy. */
export interface CpuUse {
  clientCores: number
  serverCores: number | undefined
  serverMainThreadCores: number | undefined
  /**
   * The busiest server thread other than the main one: on embedded PGlite under JWT load, the
   * database's thread (src/db/pglite-worker.ts); near 1.0 means it is the limit.
   */
  serverBusiestWorkerCores: number | undefined
  postgresCores: number | undefined
  /** Busy time nobody above accounts for, steal included: high values mean a noisy run. */
  otherCores: number | undefined
  stealCores: number | undefined
  /** Busy share of all cores, 0..1. */
  machineBusy: number | undefined
}

/** `ownPostgres`: local PostgreSQL serves the benchmark; otherwise its activity is other load. */
export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot, ownPostgres: boolean): CpuUse {
  const wall = b.at - a.at
  const clientCores = (b.self - a.self) / wall
  const serverCores = a.server === undefined || b.server === undefined ? undefined : (b.server - a.server) / wall
  const serverMainThreadCores =
    a.serverMain === undefined || b.serverMain === undefined ? undefined : (b.serverMain - a.serverMain) / wall
  let busiest: number | undefined
  for (const [tid, seconds] of b.serverThreads) {
    const before = a.serverThreads.get(tid)
    if (before === undefined) continue
    busiest = Math.max(busiest ?? 0, seconds - before)
  }
  const serverBusiestWorkerCores = busiest === undefined ? undefined : busiest / wall
  // Processes that exited in between are left out (their last seconds are lost, a small error).
  let postgres = 0
  for (const [pid, seconds] of b.postgres) postgres += seconds - (a.postgres.get(pid) ?? 0)
  const postgresCores = ownPostgres && b.postgres.size > 0 ? postgres / wall : undefined
  if (!a.machine || !b.machine || serverCores === undefined) {
    return {
      clientCores,
      serverCores,
      serverMainThreadCores,
      serverBusiestWorkerCores,
      postgresCores,
      otherCores: undefined,
      stealCores: undefined,
      machineBusy: undefined,
    }
  }
  const total = b.machine.total - a.machine.total
  const busy = b.machine.busy - a.machine.busy
  const cores = coreCount()
  return {
    clientCores,
    serverCores,
    serverMainThreadCores,
    serverBusiestWorkerCores,
    postgresCores,
    otherCores: (busy / total) * cores - clientCores - serverCores - (postgresCores ?? 0),
    stealCores: ((b.machine.steal - a.machine.steal) / total) * cores,
    machineBusy: busy / total,
  }
}

export const coreCount = () => cpus().length

/** Cores' worth of CPU used by everything but this process (its worker threads included) between two snapshots. */
export function otherLoadBetween(a: CpuSnapshot, b: CpuSnapshot): number | undefined {
  if (!a.machine || !b.machine) return undefined
  const busyCores = ((b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total)) * coreCount()
  return busyCores - (b.self - a.self) / (b.at - a.at)
}

/** With `thread`, one thread of the process (the main thread's id is the pid). */
function processCpuSeconds(pid: number, thread?: number): number | undefined {
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8')
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 (all threads).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
  } catch {
    return undefined // exited, or no /proc
  }
}

/** Per thread of the process but its main thread (id = pid). */
function threadCpuSeconds(pid: number): Map<number, number> {
  const found = new Map<number, number>()
  let tids: number[]
  try {
    tids = readdirSync(`/proc/${pid}/task`)
      .map(Number)
      .filter((tid) => tid !== pid)
  } catch {
    return found
  }
  for (const tid of tids) {
    const seconds = processCpuSeconds(pid, tid)
    if (seconds !== undefined) found.set(tid, seconds)
  }
  return found
}

function postgresCpuSeconds(): Map<number, number> {
  const found = new Map<number, number>()
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p))
  } catch {
    return found
  }
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue
    } catch {
      continue
    }
    const seconds = processCpuSeconds(Number(pid))
    if (seconds !== undefined) found.set(Number(pid), seconds)
  }
  return found
}

function machineSeconds(): CpuSnapshot['machine'] {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!
    // user nice system idle iowait irq softirq steal
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number)
    const total = ticks.reduce((sum, t) => sum + t, 0)
    const idle = ticks[3]! + ticks[4]!
    return {
      busy: (total - idle) / TICKS_PER_SECOND,
      steal: ticks[7]! / TICKS_PER_SECOND,
      total: total / TICKS_PER_SECOND,
    }
  } catch {
    return undefined
  }
}
