/**
 * Crash safety: the real server process (src/server.ts) under a mixed load of issuance,
 * revocation, consent grants and revocations and presentation answers and verifications (which
 * send callbacks), killed with SIGKILL mid-load, restarted on the same data (DATA_DIR's embedded
 * PGlite, or the same PostgreSQL database), then checked:
 *
 * - every request that got a 2xx is there, in the state it answered;
 * - nothing is half-written: each credential has its status-list slot, wallet activity and chain
 *   leaf, each revocation its status bit and chain job, each consent its activities and chain
 *   jobs, each answered request its presentation and callback event, and the other way round
 *   (requests cut off in flight left all of it or none of it);
 * - both outboxes resume: every chain job is mined and each registry write shows up on chain
 *   exactly once; every callback event reaches the receiver.
 *
 * The kill is timed, not random: it comes once enough requests got 2xx, while requests are in
 * flight, while the dev chain has mined a transaction whose hash the service is still waiting
 * for (an RPC proxy holds the answer), and while the receiver has a callback body whose 204 it
 * holds back. Those are the two windows an outbox cannot close: after a restart the service
 * sends that transaction again (the registries are idempotent: the resend is mined as a no-op,
 * no second event) and delivers that event again (at least once: the same event id and the same
 * body bytes, signed again; receivers deduplicate on X-Event-Id, docs/callbacks.md).
 *
 * A killed instance's claims on outbox rows are leased (callbacks 60 s, chain jobs 5 min). The
 * restarted server runs with its clock moved 330 s on (test/helpers/clock-shift.ts) instead of
 * the test sleeping through the leases.
 *
 * Real: the server process, its database, the EDR dev chain (with the proxy in front), the
 * receiver. The embedded-PGlite run always happens; the PostgreSQL run when PostgreSQL is
 * reachable at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), and always
 * under CI=true, where an unreachable PostgreSQL fails it.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it, type TestContext } from 'node:test'
import type { JSONWebKeySet } from 'jose'
import type { Kysely } from 'kysely'
import { createBenchDatabase, postgresReachable } from '../../bench/lib/postgres.js'
import type { DevChain } from '../../scripts/lib/dev-chain.js'
import type { Deployment } from '../../src/adapters/chain/deploy.js'
import { openDatabase } from '../../src/db/connect.js'
import type { DB } from '../../src/db/database.js'
import { chainEnv, startChainWithRegistries, waitFor } from '../helpers/chain.js'
import { checkAnswered, checkCallbacks, checkChain, checkWhole, missingEvents } from '../helpers/crash-checks.js'
import { Api, World } from '../helpers/crash-load.js'
import { startHoldingReceiver, startHoldingRpcProxy } from '../helpers/held-endpoints.js'
import { startServer, type RunningServer } from '../helpers/server-process.js'
import { TEST_DATABASE_URL } from '../helpers/test-database.js'

const CLOCK_SHIFT = path.resolve(import.meta.dirname, '../helpers/clock-shift.ts')
/** Past the chain outbox's 5-minute lease (and the callbacks' 60 s). */
const SHIFT_MS = 330_000
/** 2xx answers during the load before the kill may come. */
const OK_BEFORE_KILL = 40
const WORKERS = 8
const MAX_LOAD_OPS = 600

// ---------------------------------------------------------------------------------------------
// The engines

interface Engine {
  env: Record<string, string>
  open(): Promise<{ db: Kysely<DB>; close(): Promise<void> }>
  dispose(): Promise<void>
}

function pgliteEngine(dataDir: string): Engine {
  return {
    env: {},
    open: async () => {
      const handle = await openDatabase({ pgliteDir: path.join(dataDir, 'pglite') })
      return { db: handle.db, close: () => handle.close() }
    },
    dispose: async () => undefined,
  }
}

async function postgresEngine(): Promise<Engine> {
  const database = await createBenchDatabase(TEST_DATABASE_URL, 'crash')
  return {
    env: { DATABASE_URL: database.url },
    open: async () => {
      const handle = await openDatabase({ databaseUrl: database.url, poolSize: 2 })
      return { db: handle.db, close: () => handle.close() }
    },
    dispose: () => database.drop(),
  }
}

const engines: Array<'pglite' | 'postgres'> = ['pglite']
if ((await postgresReachable(TEST_DATABASE_URL)) || process.env.CI) engines.push('postgres')
else console.warn(`PostgreSQL at ${TEST_DATABASE_URL} is not reachable: the crash test runs on embedded PGlite only.`)

// ---------------------------------------------------------------------------------------------

describe('crash safety: SIGKILL under load, restart, nothing lost or half-written', { concurrency: true }, () => {
  let chain: DevChain
  let deployment: Deployment

  before(async () => {
    ;({ chain, deployment } = await startChainWithRegistries())
  })
  after(async () => {
    await chain?.stop()
  })

  // The engines run side by side (each its own server, database, receiver and chain account).
  for (const [i, engineName] of engines.entries()) {
    it(`on ${engineName === 'pglite' ? 'embedded PGlite (DATA_DIR)' : 'PostgreSQL'}`, async (ctx) => {
      await crashScenario(ctx, engineName, chain, deployment, i + 1)
    })
  }
})

async function crashScenario(
  ctx: TestContext,
  engineName: 'pglite' | 'postgres',
  chain: DevChain,
  deployment: Deployment,
  keyIndex: number,
): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-crash-'))
  const engine = engineName === 'pglite' ? pgliteEngine(dataDir) : await postgresEngine()
  const receiver = await startHoldingReceiver()
  const proxy = await startHoldingRpcProxy(chain.url)
  const servers: RunningServer[] = []
  const env = {
    DATA_DIR: dataDir,
    MASTER_KEY: randomBytes(32).toString('hex'),
    PUBLIC_BASE_URL: 'http://service.test',
    CALLBACK_ALLOW_PRIVATE: 'true',
    CALLBACK_POLL_MS: '50',
    OUTBOUND_TIMEOUT_MS: '3000',
    RATE_LIMIT_AUTH_PER_MINUTE: '100000',
    BBS_WORKERS: '1',
    ...chainEnv(chain, deployment, keyIndex, {
      BLOCKCHAIN_POLL_MS: '100',
      BLOCKCHAIN_BATCH_WAIT_MS: '150',
      BLOCKCHAIN_BATCH_SIZE: '8',
    }),
    // The service talks to the chain through the proxy.
    BLOCKCHAIN_RPC_URL: proxy.url,
    ...engine.env,
  }
  const t0 = Date.now()
  const phases: string[] = []
  const phase = (name: string) => phases.push(`${name} ${((Date.now() - t0) / 1000).toFixed(1)}s`)
  try {
    // --- 1. First life: set up, then load until the kill ----------------------------------------
    const first = await startServer(env)
    phase('started')
    servers.push(first)
    const api = new Api(first.url)
    // Looked at after every 2xx and every held answer; armed once the load starts.
    const killer = { trigger: (): void => undefined }
    const world = new World(api, receiver.url, () => killer.trigger())
    await world.setUp()
    const setUpOk = world.okCount
    phase('set up')

    let killed = false
    let snapshot: { ok: number; inFlight: number; heldTx: string[]; heldEvents: string[] } | undefined
    const exited = first.exited
    killer.trigger = () => {
      const loadOk = world.okCount - setUpOk
      if (killed || loadOk < OK_BEFORE_KILL || proxy.held.size === 0 || receiver.held.size === 0 || api.inFlight < 2)
        return
      killed = true
      snapshot = { ok: loadOk, inFlight: api.inFlight, heldTx: [...proxy.held], heldEvents: [...receiver.held] }
      first.child.kill('SIGKILL')
      // Held answers go out only to a dead process; then both ends answer at once.
      proxy.release = receiver.release = exited
      proxy.holding = receiver.holding = false
    }
    proxy.onHold = receiver.onHold = () => killer.trigger()
    proxy.holding = receiver.holding = true

    let started = 0
    const outcomes = { failedInFlight: 0, refused: [] as string[] }
    const worker = async () => {
      while (!killed && started < MAX_LOAD_OPS) {
        const op = world.nextOp(started++)
        try {
          await op()
        } catch (err) {
          if (!killed) outcomes.refused.push(err instanceof Error ? err.message : String(err))
          else outcomes.failedInFlight++
        }
      }
    }
    await Promise.all(Array.from({ length: WORKERS }, worker))
    assert.deepEqual(outcomes.refused, [], 'no request of the load was refused before the kill')
    assert.ok(
      killed && snapshot,
      `the kill conditions were never met (2xx ${world.okCount - setUpOk}, chain sends ${proxy.sent.length}, deliveries ${receiver.deliveries.length})`,
    )
    assert.equal(await exited, null, 'killed by the signal')
    const deliveriesBeforeKill = receiver.deliveries.length
    phase('killed')
    if (engineName === 'pglite') {
      // pg_control's DBState (PostgreSQL's ControlFileData: 8-byte system id, two uint32
      // versions, then the state): still DB_IN_PRODUCTION (6), not DB_SHUTDOWNED (1). The kill
      // left the data directory mid-flight, so the next start has to recover from the WAL.
      const control = await readFile(path.join(dataDir, 'pglite', 'global', 'pg_control'))
      assert.equal(control.readUInt32LE(16), 6, 'the killed PGlite was not shut down cleanly')
    }
    ctx.diagnostic(
      `${engineName}: set-up 2xx ${setUpOk}; load 2xx before the kill ${snapshot.ok}, in flight ${snapshot.inFlight} (${outcomes.failedInFlight} cut off); chain tx held ${snapshot.heldTx.length}; callbacks held ${snapshot.heldEvents.length}`,
    )

    // --- 2. Second life: restart on the same data, later ---------------------------------------
    const second = await startServer({ ...env, TEST_CLOCK_SHIFT_MS: String(SHIFT_MS) }, { preload: [CLOCK_SHIFT] })
    servers.push(second)
    api.base = second.url
    phase('restarted')
    // It works: the tokens from before the crash are still good; it issues and revokes.
    const issuedAfter = await world.issue()
    await world.revoke(issuedAfter.id)

    await waitFor(
      'the chain outbox drained',
      async () => {
        const { outbox } = (await api.ok('GET', '/api/blockchain/status')).data
        return outbox.pending === 0 && outbox.sent === 0 && outbox.unbatched_credentials === 0
      },
      30_000,
    )
    await waitFor(
      'every callback event arrived',
      async () => (await missingEvents(api, world, receiver.deliveries)).length === 0,
    )
    const jwks = (await api.ok('GET', '/api/callbacks/jwks')) as unknown as JSONWebKeySet
    phase('outboxes drained')
    second.child.kill('SIGTERM')
    assert.equal(await second.exited, 0, second.output().slice(-2000))

    // --- 3. What the database, the chain and the receiver hold ---------------------------------
    const { db, close } = await engine.open()
    try {
      await checkAnswered(db, world.answered)
      await checkWhole(db)
      await checkCallbacks(db, receiver.deliveries, snapshot.heldEvents, jwks)
      await checkChain(db, chain, deployment, keyIndex, snapshot.heldTx)
    } finally {
      await close()
    }
    phase('checked')
    ctx.diagnostic(`${engineName}: ${phases.join(', ')}`)
    ctx.diagnostic(
      `${engineName}: deliveries ${receiver.deliveries.length} (${deliveriesBeforeKill} before the kill); chain transactions ${proxy.sent.length}`,
    )
  } catch (error) {
    for (const [n, s] of servers.entries()) ctx.diagnostic(`server ${n + 1} output (tail):\n${s.output().slice(-3000)}`)
    throw error
  } finally {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL')
    await Promise.all(servers.map((s) => s.exited))
    await receiver.close()
    await proxy.close()
    await engine.dispose()
    await rm(dataDir, { recursive: true, force: true })
  }
}
