/**
 * Idempotency-Key across a crash (issue 26, docs/idempotency.md): the real server process under
 * many keyed issuances in flight is killed with SIGKILL, restarted on the same data (DATA_DIR's
 * embedded PGlite, or the same PostgreSQL database), and every issuance sent is retried with its
 * key. Each retry must answer 201, the same credential as the first answer where there was one,
 * and each key must have exactly one credential: none for a request the kill cut off before its
 * commit (the retry issues it), one for a request committed whose answer never left.
 *
 * The first server holds each 201 for a moment after its commit (test/helpers/hold-created.ts),
 * so that the kill reliably leaves some credentials committed but unanswered: the case a key
 * recorded outside the credential's transaction would get wrong.
 *
 * Real: the server process and its database. The PostgreSQL run when PostgreSQL is reachable at
 * TEST_DATABASE_URL, and always under CI=true.
 */
import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, it } from 'node:test'
import { createBenchDatabase, postgresReachable } from '../../bench/lib/postgres.js'
import { setTimeout as sleep } from 'node:timers/promises'
import { Api, type Json } from '../helpers/crash-load.js'
import { heldNow } from '../helpers/hold-created.js'
import { DidClient } from '../helpers/did-client.js'
import { JWT_DEGREE_SCHEMA } from '../helpers/issuer-setup.js'
import { startServer, type RunningServer } from '../helpers/server-process.js'
import { TEST_DATABASE_URL } from '../helpers/test-database.js'

const HOLD_CREATED = path.resolve(import.meta.dirname, '../helpers/hold-created.ts')
const KEYS = 240
const WORKERS = 16
/** 201s before the kill may come: the load is well under way, with requests in flight. */
const OK_BEFORE_KILL = 60

async function postgresDatabase(): Promise<{ env: Record<string, string>; dispose(): Promise<void> }> {
  const database = await createBenchDatabase(TEST_DATABASE_URL, 'idem')
  return { env: { DATABASE_URL: database.url }, dispose: () => database.drop() }
}

const engines: Array<'pglite' | 'postgres'> = ['pglite']
if ((await postgresReachable(TEST_DATABASE_URL)) || process.env.CI) engines.push('postgres')
else
  console.warn(
    `PostgreSQL at ${TEST_DATABASE_URL} is not reachable: the idempotent-retry test runs on embedded PGlite only.`,
  )

/** POST with an Idempotency-Key over real HTTP; a connection the kill cut answers undefined. */
async function keyedPost(
  base: string,
  url: string,
  token: string,
  key: string,
  payload: unknown,
): Promise<{ status: number; body: Json } | undefined> {
  try {
    const res = await fetch(`${base}${url}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `"${key}"` },
      body: JSON.stringify(payload),
    })
    return { status: res.status, body: (await res.json()) as Json }
  } catch {
    return undefined
  }
}

describe('Idempotency-Key: issuances retried with their keys after a SIGKILL yield one credential each', {
  concurrency: true,
}, () => {
  for (const engineName of engines) {
    it(`on ${engineName === 'pglite' ? 'embedded PGlite (DATA_DIR)' : 'PostgreSQL'}`, async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-idem-'))
      const database =
        engineName === 'postgres' ? await postgresDatabase() : { env: {}, dispose: async () => undefined }
      const env = {
        DATA_DIR: dataDir,
        MASTER_KEY: randomBytes(32).toString('hex'),
        PUBLIC_BASE_URL: 'http://service.test',
        RATE_LIMIT_AUTH_PER_MINUTE: '100000',
        BBS_WORKERS: '1',
        ...database.env,
      }
      const servers: RunningServer[] = []
      try {
        // The first life holds each 201 a moment after its commit, so the kill finds some there.
        const first = await startServer({ ...env, TEST_HOLD_CREATED_MS: '1000' }, { preload: [HOLD_CREATED] })
        servers.push(first)
        const issuer = new DidClient()
        let api = new Api(first.url)
        let token = await api.login(issuer)
        await api.ok('POST', '/api/issuer', token, { name: 'Retry University' })
        const schemaId = (await api.ok('POST', `/api/issuer/${issuer.did}/schemas`, token, JWT_DEGREE_SCHEMA)).schema
          .id as string
        const issueUrl = `/api/issuer/${issuer.did}/issue`
        const requests = Array.from({ length: KEYS }, (_, i) => ({
          key: randomUUID(),
          body: { credential_type: 'Degree', schema_id: schemaId, attributes: { given_name: `Holder ${i}`, gpa: 3.5 } },
        }))

        // --- Load until the kill: keyed issuances, WORKERS in flight ---------------------------
        const firstAnswers = new Map<string, Json>()
        let sent = 0
        let inFlight = 0
        let killed = false
        const worker = async () => {
          while (!killed && sent < KEYS) {
            const request = requests[sent++]!
            inFlight++
            const res = await keyedPost(first.url, issueUrl, token, request.key, request.body)
            inFlight--
            if (res?.status === 201) firstAnswers.set(request.key, res.body)
            else if (!killed) assert.fail(`before the kill: ${res?.status} ${JSON.stringify(res?.body)}`)
          }
        }
        // The kill comes once the load is well under way, while the server holds a committed 201
        // (it says so on stderr): whatever the machine's load, some issuance is committed unanswered.
        const killer = async () => {
          while (!killed && sent < KEYS) {
            if (firstAnswers.size >= OK_BEFORE_KILL && inFlight >= WORKERS / 2 && heldNow(first.output()) > 0) {
              killed = true
              first.child.kill('SIGKILL')
              return
            }
            await sleep(2)
          }
        }
        await Promise.all([killer(), ...Array.from({ length: WORKERS }, worker)])
        assert.ok(killed, 'the kill came while issuances were in flight')
        assert.equal(await first.exited, null, 'killed by the signal')

        // --- Restart on the same data; retry every request sent, with its key -----------------
        const second = await startServer(env)
        servers.push(second)
        api = new Api(second.url)
        token = await api.login(issuer)
        const listed = async () =>
          new Set((await api.all(`/api/issuer/${issuer.did}/credentials`, token)).map((c) => c.id as string))
        const committedBeforeRetry = (await listed()).size
        const tried = requests.slice(0, sent)
        const retries = await Promise.all(tried.map((r) => keyedPost(second.url, issueUrl, token, r.key, r.body)))
        const ids = new Map<string, string>()
        for (const [i, res] of retries.entries()) {
          const { key } = tried[i]!
          assert.equal(res?.status, 201, `retry of ${key}: ${res?.status} ${JSON.stringify(res?.body)}`)
          const firstAnswer = firstAnswers.get(key)
          if (firstAnswer) assert.deepEqual(res!.body, firstAnswer, `the retry of ${key} answers what the first did`)
          ids.set(key, res!.body.credential.id as string)
        }
        // One credential per key: as many distinct credentials as keys sent, and no others.
        assert.equal(new Set(ids.values()).size, tried.length, 'each key has its own credential')
        assert.deepEqual(
          await listed(),
          new Set(ids.values()),
          'the issuer holds exactly the credentials the keys answered',
        )
        // A second round of retries changes nothing.
        const again = await Promise.all(tried.map((r) => keyedPost(second.url, issueUrl, token, r.key, r.body)))
        for (const [i, res] of again.entries()) assert.equal(res?.body.credential.id, ids.get(tried[i]!.key))
        assert.equal((await listed()).size, tried.length)
        assert.ok(
          committedBeforeRetry > firstAnswers.size,
          'the kill left issuances committed whose client never saw the answer',
        )
        console.log(
          `${engineName}: ${tried.length} sent, ${firstAnswers.size} answered before the kill, ${committedBeforeRetry - firstAnswers.size} committed unanswered, ${tried.length - committedBeforeRetry} issued by their retry`,
        )
      } finally {
        for (const server of servers)
          if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL')
        await Promise.all(servers.map((s) => s.exited))
        await database.dispose()
        await rm(dataDir, { recursive: true, force: true })
      }
    })
  }
})
