import { cpuBetween, cpuSnapshot, type CpuUse } from './cpu.js'
import { runFloor, type FloorResult } from './floor.js'
import { JsonClient } from './http-client.js'
import { countReusedUsers, enrollUsers, runLoginLoad, type LoginLoadResult } from './login-load.js'
import type { BenchOptions, Engine } from './options.js'
import type { ServerProcess } from './server-process.js'
import { createVirtualUser } from './virtual-user.js'

export interface Round {
  floor: FloorResult & { cpu: CpuUse }
  login: LoginLoadResult & { cpu: CpuUse }
}

export interface EngineRun {
  rounds: Round[]
  users: number
  /** Users whose measured logins reused the row their first login created. */
  usersReused: number
}

export async function measured<T>(
  pid: number,
  ownPostgres: boolean,
  phase: () => Promise<T>,
): Promise<T & { cpu: CpuUse }> {
  const before = cpuSnapshot(pid)
  const result = await phase()
  return { ...result, cpu: cpuBetween(before, cpuSnapshot(pid), ownPostgres) }
}

export const noise = (cpu: CpuUse) =>
  cpu.otherCores === undefined ? '' : `; other load ${cpu.otherCores.toFixed(2)} cores`

/**
 * Server CPU per operation (ms), whole process, main thread and busiest other thread: steadier
 * than operations per second on a shared machine, and it says which thread a change relieved.
 */
export function cpuPerOperation(cpu: CpuUse, perSecond: number): string {
  if (cpu.serverCores === undefined || perSecond <= 0) return ''
  const ms = (cores: number | undefined) => (cores === undefined ? '?' : ((cores * 1000) / perSecond).toFixed(3))
  return `; server CPU per op ${ms(cpu.serverCores)} ms: main ${ms(cpu.serverMainThreadCores)}, busiest other thread ${ms(cpu.serverBusiestWorkerCores)}`
}

/**
 * Against one server process: warm up (JIT, signing-key cache, users created), then floor and
 * login phases interleaved so slow drifts of the shared machine hit both alike.
 */
export async function runAgainstServer(
  server: ServerProcess,
  engine: Engine,
  options: BenchOptions,
  log: (line: string) => void,
): Promise<EngineRun> {
  const ownPostgres = engine === 'postgres'
  const users = Array.from({ length: options.connections }, createVirtualUser)
  const client = new JsonClient(server.baseUrl, options.connections)
  try {
    const created = await enrollUsers(client, users)
    if (options.warmupSeconds > 0) {
      log(`  warm-up ${options.warmupSeconds} s floor + ${options.warmupSeconds} s logins`)
      await runFloor(server.baseUrl, options.connections, options.warmupSeconds)
      await runLoginLoad(client, users, options.warmupSeconds)
    }
    const rounds: Round[] = []
    for (let i = 1; i <= options.rounds; i++) {
      const floor = await measured(server.pid, ownPostgres, () =>
        runFloor(server.baseUrl, options.connections, options.seconds),
      )
      log(
        `  round ${i}: floor ${Math.round(floor.requestsPerSecond)} req/s (errors ${floor.errors}${noise(floor.cpu)})`,
      )
      const login = await measured(server.pid, ownPostgres, () => runLoginLoad(client, users, options.seconds))
      log(
        `  round ${i}: login ${Math.round(login.flowsPerSecond)} flows/s, p50 ${login.p50Ms.toFixed(1)} ms, p99 ${login.p99Ms.toFixed(1)} ms (errors ${login.errors}${noise(login.cpu)})`,
      )
      rounds.push({ floor, login })
    }
    return { rounds, users: users.length, usersReused: await countReusedUsers(client, users, created) }
  } finally {
    client.close()
  }
}
