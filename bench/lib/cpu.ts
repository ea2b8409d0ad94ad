import { readdirSync, readFileSync } from 'node:fs'
import { cpus } from 'node:os'

/**
 * CPU accounting for the three parties sharing this machine: the load generator (this
 * process), the server process, and everything else (PostgreSQL backends, other tenants).
 * Linux /proc counters are in USER_HZ ticks, which is 100 per second on every Linux ABI.
 */
const TICKS_PER_SECOND = 100

export interface CpuSnapshot {
  at: number
  self: number
  server: number | undefined
  /** Every local process named postgres (server and backends), when PostgreSQL runs here. */
  postgres: number | undefined
  machineBusy: number | undefined
  machineTotal: number | undefined
}

/** Seconds of CPU, from which per-phase deltas are taken. */
export function cpuSnapshot(serverPid: number): CpuSnapshot {
  const usage = process.cpuUsage()
  const machine = machineTicks()
  return {
    at: performance.now() / 1000,
    self: (usage.user + usage.system) / 1e6,
    server: processCpuSeconds(serverPid),
    postgres: postgresCpuSeconds(),
    machineBusy: machine && machine.busy / TICKS_PER_SECOND,
    machineTotal: machine && machine.total / TICKS_PER_SECOND,
  }
}

export interface CpuUse {
  /** Cores' worth of CPU used on average: 1.0 is one core fully busy. */
  clientCores: number
  serverCores: number | undefined
  postgresCores: number | undefined
  /** Whatever else kept the machine busy (other tenants, the kernel): high values mean noise. */
  otherCores: number | undefined
  /** Busy share of all cores, 0..1 (includes PostgreSQL, client, server, others). */
  machineBusy: number | undefined
}

export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): CpuUse {
  const wall = b.at - a.at
  const diff = (x: number | undefined, y: number | undefined) => (x === undefined || y === undefined ? undefined : y - x)
  const server = diff(a.server, b.server)
  const busy = diff(a.machineBusy, b.machineBusy)
  const total = diff(a.machineTotal, b.machineTotal)
  const perWall = (x: number | undefined) => (x === undefined ? undefined : x / wall)
  const clientCores = (b.self - a.self) / wall
  const serverCores = perWall(server)
  const postgresCores = perWall(diff(a.postgres, b.postgres))
  const machineBusy = busy === undefined || !total ? undefined : busy / total
  const otherCores =
    machineBusy === undefined || serverCores === undefined ? undefined : machineBusy * coreCount() - clientCores - serverCores - (postgresCores ?? 0)
  return { clientCores, serverCores, postgresCores, otherCores, machineBusy }
}

export const coreCount = () => cpus().length

function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 (all threads).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
  } catch {
    return undefined
  }
}

function postgresCpuSeconds(): number | undefined {
  let total = 0
  let found = false
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue
      } catch {
        continue // the process ended meanwhile
      }
      total += processCpuSeconds(Number(pid)) ?? 0
      found = true
    }
  } catch {
    return undefined
  }
  return found ? total : undefined
}

function machineTicks(): { busy: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number)
    const total = ticks.reduce((sum, t) => sum + t, 0)
    const idle = ticks[3]! + ticks[4]! // idle + iowait
    return { busy: total - idle, total }
  } catch {
    return undefined
  }
}
