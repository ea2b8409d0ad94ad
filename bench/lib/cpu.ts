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
    postgres: postgresCpuSeconds(),
    machine: machineSeconds(),
  }
}

/** Cores' worth of CPU used on average: 1.0 is one core fully busy. */
export interface CpuUse {
  clientCores: number
  serverCores: number | undefined
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
  // Processes that exited in between are left out (their last seconds are lost, a small error).
  let postgres = 0
  for (const [pid, seconds] of b.postgres) postgres += seconds - (a.postgres.get(pid) ?? 0)
  const postgresCores = ownPostgres && b.postgres.size > 0 ? postgres / wall : undefined
  if (!a.machine || !b.machine || serverCores === undefined) {
    return { clientCores, serverCores, postgresCores, otherCores: undefined, stealCores: undefined, machineBusy: undefined }
  }
  const total = b.machine.total - a.machine.total
  const busy = b.machine.busy - a.machine.busy
  const cores = coreCount()
  return {
    clientCores,
    serverCores,
    postgresCores,
    otherCores: (busy / total) * cores - clientCores - serverCores - (postgresCores ?? 0),
    stealCores: ((b.machine.steal - a.machine.steal) / total) * cores,
    machineBusy: busy / total,
  }
}

export const coreCount = () => cpus().length

function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 (all threads).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
  } catch {
    return undefined // exited, or no /proc
  }
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
    return { busy: (total - idle) / TICKS_PER_SECOND, steal: ticks[7]! / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND }
  } catch {
    return undefined
  }
}
