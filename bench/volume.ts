/**
 * `npm run bench:volume` (issue 26): one server per engine on a fresh database, filled to each
 * level of credentials of one issuer (through the API, then the documented fast path), and at
 * each level: every listing and statistics route, verification, revocation and issuance over
 * HTTP, and what a credential costs in storage. bench/README.md, "Volume (issue 26)".
 */
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { installAbortHandlers, onAbort } from './lib/cleanup.js'
import { coreCount } from './lib/cpu.js'
import { JsonClient } from './lib/http-client.js'
import type { Engine } from './lib/options.js'
import { createBenchDatabase, postgresReachable } from './lib/postgres.js'
import {
  codeVersion,
  prepareServer,
  projectRoot,
  startServer,
  type ServerBuild,
  type ServerProcess,
} from './lib/server-process.js'
import { openPglite, openPostgres, type SqlSession } from './lib/sql-session.js'
import { copyCredentials, countCredentials, middleCursor, vacuumAnalyze } from './lib/volume-fill.js'
import {
  bigHolderShare,
  readVolumeOptions,
  SMALL_HOLDER_CREDENTIALS,
  type VolumeOptions,
} from './lib/volume-options.js'
import { issueToSubjects, setUpParties } from './lib/volume-parties.js'
import { storageTable, volumeTable, type LevelResult, type VolumeResult } from './lib/volume-report.js'
import { timeLevel } from './lib/volume-routes.js'
import { storageReport } from './lib/volume-storage.js'
import { createVirtualUser } from './lib/virtual-user.js'

/** API-issued fill credentials per new (real) holder other than the big and the small one. */
const PER_API_HOLDER = 20
/** A bound on the whole run (a million copies on PostgreSQL take minutes, the API seed seconds). */
const BUDGET_MS = 3 * 60 * 60 * 1000

const log = (line: string) => console.log(line)

/** `save` receives the result so far after every level, so a long run keeps what it measured. */
async function runEngine(
  engine: Engine,
  options: VolumeOptions,
  build: ServerBuild,
  save: (result: VolumeResult) => Promise<void>,
): Promise<VolumeResult> {
  const result = (levels: LevelResult[]): VolumeResult => ({
    engine,
    code: codeVersion(),
    cores: coreCount(),
    date: new Date().toISOString(),
    levels,
  })
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-volume-'))
  const database = engine === 'postgres' ? await createBenchDatabase(options.postgresUrl) : undefined
  const cleanup = async () => {
    await database?.drop()
    await rm(dataDir, { recursive: true, force: true })
  }
  const untrack = onAbort(cleanup)
  // The same MASTER_KEY and address on every restart: the database recorded both at first start.
  const env = { MASTER_KEY: randomBytes(32).toString('hex') }
  let server: ServerProcess | undefined
  const start = async (port?: number) =>
    startServer({ build, databaseUrl: database?.url, dataDir, env, port, startTimeoutMs: 180_000 })
  const openSql = (): Promise<SqlSession> => (database ? openPostgres(database.url) : openPglite(dataDir))
  const levels: LevelResult[] = []
  try {
    server = await start()
    const port = server.port
    let client = new JsonClient(server.baseUrl, 64, 60_000)
    log(`\n${engine}: setting up parties (issuer, holders, offers, requests, presentations)`)
    const parties = await setUpParties(client)
    let apiFilled = 0
    let bigCount = 0
    let smallCount = 0
    for (const level of options.levels[engine]) {
      log(`\n${engine} level ${level.toLocaleString('en-US')}`)
      // 1. Through the API, up to BENCH_VOLUME_API_CREDENTIALS in all.
      const viaApi = Math.max(0, Math.min(level, options.apiCredentials) - apiFilled)
      const subjects: string[] = []
      const toBig = Math.min(viaApi, Math.max(0, bigHolderShare(level) - bigCount))
      const toSmall = Math.min(viaApi - toBig, SMALL_HOLDER_CREDENTIALS - smallCount)
      for (let i = 0; i < toBig; i++) subjects.push(parties.big.did)
      for (let i = 0; i < toSmall; i++) subjects.push(parties.small.did)
      let other = ''
      while (subjects.length < viaApi) {
        if (subjects.length % PER_API_HOLDER === 0 || !other) other = createVirtualUser().did
        subjects.push(other)
      }
      const apiBegan = performance.now()
      if (viaApi > 0) await issueToSubjects(client, parties.issuer, 'bbs', subjects, apiFilled)
      const apiSeconds = (performance.now() - apiBegan) / 1000
      if (viaApi > 0) log(`  issued ${viaApi} through the API in ${apiSeconds.toFixed(1)} s`)
      apiFilled += viaApi
      bigCount += toBig
      smallCount += toSmall

      // 2. Server stopped: the fast path, then storage and a cursor from SQL.
      client.close()
      await server.stop()
      server = undefined
      const sql = await openSql()
      let copied = 0
      let copySeconds = 0
      let storage
      let cursor
      try {
        const counts = await countCredentials(sql, parties.issuer.did, parties.big.did)
        copied = Math.max(0, level - counts.total)
        const copyToBig = Math.min(copied, Math.max(0, bigHolderShare(level) - counts.holder))
        const began = performance.now()
        await copyCredentials(
          sql,
          {
            issuerDid: parties.issuer.did,
            copies: copied,
            toBig: copyToBig,
            bigDid: parties.big.did,
            firstCopy: counts.total,
          },
          log,
        )
        await vacuumAnalyze(sql)
        copySeconds = (performance.now() - began) / 1000
        if (copied > 0) log(`  fast path: ${copied.toLocaleString('en-US')} copies in ${copySeconds.toFixed(1)} s`)
        bigCount = counts.holder + copyToBig
        storage = await storageReport(sql, parties.issuer.did, engine === 'pglite' ? dataDir : undefined)
        cursor = await middleCursor(sql, parties.big.did, bigCount)
      } finally {
        await sql.close()
      }
      log(storageTable(engine, storage))

      // 3. Timed over HTTP.
      server = await start(port)
      client = new JsonClient(server.baseUrl, 64, 60_000)
      const before = os.loadavg()
      const timings = await timeLevel(client, parties, {
        samples: options.samples,
        concurrency: options.concurrency,
        bigCursor: cursor,
        issuanceConnections: options.issuanceConnections,
        issuanceSeconds: options.issuanceSeconds,
      })
      const after = os.loadavg()
      for (const t of timings.routes)
        log(
          `  ${t.route.padEnd(52)} p50 ${t.sequential.p50} ms (p90 ${t.sequential.p90}); ${options.concurrency} in flight p50 ${t.concurrent.p50} ms (p90 ${t.concurrent.p90})`,
        )
      log(
        `  issuance ${timings.issuance.perSecond}/s, p50 ${timings.issuance.p50} ms, errors ${timings.issuance.errors}; load average ${before[0]!.toFixed(1)} -> ${after[0]!.toFixed(1)}`,
      )
      levels.push({
        level,
        credentials: storage.credentials,
        bigHolderCredentials: bigCount,
        fill: { viaApi, copied, apiSeconds: Math.round(apiSeconds), copySeconds: Math.round(copySeconds) },
        storage,
        timings,
        loadAverage: { before, after },
      })
      await save(result(levels))
    }
    client.close()
  } finally {
    await server?.stop()
    await cleanup()
    untrack()
  }
  return result(levels)
}

const options = readVolumeOptions()
installAbortHandlers(BUDGET_MS)
const build = await prepareServer('tsx')
try {
  await mkdir(path.join(projectRoot, 'bench/results'), { recursive: true })
  for (const engine of options.engines) {
    if (engine === 'postgres' && !(await postgresReachable(options.postgresUrl))) {
      log(`postgres: ${options.postgresUrl} does not answer; skipped`)
      continue
    }
    const file = path.join(projectRoot, `bench/results/volume-${engine}.json`)
    const result = await runEngine(engine, options, build, (partial) =>
      writeFile(file, `${JSON.stringify(partial, null, 2)}\n`),
    )
    log(`\n${volumeTable(result)}\n`)
  }
} finally {
  await build.dispose()
}
process.exit(0)
