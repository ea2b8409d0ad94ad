/**
 * `npm run bench:profile`: where the server's time goes during login, issuance and verification load. Starts the server
 * under `node --cpu-prof`, warms up, then runs the login load and, for comparison, the floor,
 * and summarises only the samples inside each measured window. The raw .cpuprofile stays in
 * bench/profiles/ (open it in Chrome DevTools > Performance). Same BENCH_* settings as run.ts.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { installAbortHandlers, onAbort } from './lib/cleanup.js'
import {
  mainThreadProfile,
  printProfileSections,
  profileShare,
  summarizeProfile,
  type ProfileSummary,
} from './lib/cpuprofile.js'
import { runFloor } from './lib/floor.js'
import { JsonClient } from './lib/http-client.js'
import { enrollHolders, HOLDER_COUNT, ISSUANCE_PHASES, runIssuanceLoad, setUpIssuer } from './lib/issuance-load.js'
import { enrollUsers, runLoginLoad } from './lib/login-load.js'
import { runVerificationLoad, setUpPresentations } from './lib/verification-load.js'
import { readOptions, type BenchOptions, type Engine } from './lib/options.js'
import { createBenchDatabase, postgresReachable } from './lib/postgres.js'
import { prepareServer, projectRoot, startServer, type ServerBuild } from './lib/server-process.js'
import { createVirtualUser } from './lib/virtual-user.js'

const nowUs = () => Number(process.hrtime.bigint() / 1000n)

async function profileEngine(
  engine: Engine,
  options: BenchOptions,
  build: ServerBuild,
): Promise<Record<string, ProfileSummary> | undefined> {
  if (engine === 'postgres' && !(await postgresReachable(options.postgresUrl))) return undefined
  const dir = path.join(projectRoot, 'bench/profiles', engine)
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  const database = engine === 'postgres' ? await createBenchDatabase(options.postgresUrl) : undefined
  const forgetDatabase = database ? onAbort(() => database.drop()) : () => false
  const windows: Record<string, [number, number]> = {}
  try {
    const server = await startServer({
      build,
      databaseUrl: database?.url,
      nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir],
    })
    const forgetServer = onAbort(() => server.stop())
    const users = Array.from({ length: options.connections }, createVirtualUser)
    const client = new JsonClient(server.baseUrl, options.connections)
    try {
      if (options.parts.includes('issuance')) {
        const issuer = await setUpIssuer(client)
        const holders = Array.from({ length: HOLDER_COUNT }, () => createVirtualUser().did)
        await enrollHolders(client, issuer, holders)
        for (const phase of ISSUANCE_PHASES) {
          await runIssuanceLoad(
            client,
            issuer,
            phase,
            holders,
            options.issuanceConnections,
            Math.max(options.warmupSeconds, 1),
          )
          const from = nowUs()
          const issued = await runIssuanceLoad(
            client,
            issuer,
            phase,
            holders,
            options.issuanceConnections,
            options.seconds,
          )
          windows[`issuance-${phase}`] = [from, nowUs()]
          console.log(
            `${engine}: issuance ${phase} ${Math.round(issued.credentialsPerSecond)}/s while profiled (errors ${issued.errors})`,
          )
        }
      }
      if (options.parts.includes('verification')) {
        const setUp = await setUpPresentations(client, await setUpIssuer(client))
        await runVerificationLoad(client, setUp, options.connections, Math.max(options.warmupSeconds, 1))
        const from = nowUs()
        const verified = await runVerificationLoad(client, setUp, options.connections, options.seconds)
        windows.verification = [from, nowUs()]
        console.log(
          `${engine}: ${Math.round(verified.perSecond)} verifications/s while profiled (errors ${verified.errors})`,
        )
      }
      if (options.parts.includes('login')) {
        await enrollUsers(client, users)
        await runLoginLoad(client, users, Math.max(options.warmupSeconds, 1))
        let from = nowUs()
        const login = await runLoginLoad(client, users, options.seconds)
        windows.login = [from, nowUs()]
        console.log(`${engine}: ${Math.round(login.flowsPerSecond)} flows/s while profiled (errors ${login.errors})`)
        from = nowUs()
        const floor = await runFloor(server.baseUrl, options.connections, options.seconds)
        windows.floor = [from, nowUs()]
        console.log(`${engine}: ${Math.round(floor.requestsPerSecond)} floor req/s while profiled`)
      }
    } finally {
      client.close()
      // SIGTERM lets the server exit normally, which is when node writes the profile.
      await server.stop()
      forgetServer()
    }
  } finally {
    await database?.drop()
    forgetDatabase()
  }
  const file = await mainThreadProfile(dir)
  return Object.fromEntries(
    Object.entries(windows).map(([name, [from, to]]) => [name, summarizeProfile(file, from, to)]),
  )
}

function print(engine: string, phase: string, s: ProfileSummary): void {
  console.log(
    `\n=== ${engine} / ${phase}: ${s.windowMs} ms sampled, main thread ${profileShare(s.busy).trim()} busy (shares below are of busy time)`,
  )
  printProfileSections(s)
}

async function main(): Promise<void> {
  const options = readOptions()
  installAbortHandlers((options.engines.length * (3 * options.seconds + 240) + 240) * 1000)
  const build = await prepareServer(options.server)
  const forgetBuild = onAbort(() => build.dispose())
  const all: Record<string, Record<string, ProfileSummary>> = {}
  try {
    for (const engine of options.engines) {
      const result = await profileEngine(engine, options, build)
      if (!result) {
        console.log(`${engine}: skipped (not reachable)`)
        continue
      }
      all[engine] = result
      for (const [phase, summary] of Object.entries(result)) print(engine, phase, summary)
    }
  } finally {
    await build.dispose()
    forgetBuild()
  }
  await mkdir(path.join(projectRoot, 'bench/profiles'), { recursive: true })
  await writeFile(path.join(projectRoot, 'bench/profiles/summary.json'), `${JSON.stringify(all, null, 2)}\n`)
  console.log('\nraw profiles and summary.json: bench/profiles/')
}

main().catch((error) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error)
  process.exitCode = 1
})
