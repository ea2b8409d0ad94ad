/**
 * One process per embedded data directory, with real processes: the server entry point
 * (src/server.ts), `npm run migrate`, and bare starters racing for the lock
 * (test/helpers/lock-racer.ts). A second server on the same DATA_DIR must refuse to start while
 * the first keeps serving; a SIGKILLed server's lock must not block the restart, which finds
 * every write the killed one acknowledged; a clean shutdown removes the lock.
 */
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { runServerToExit, startServer, type RunningServer } from '../helpers/server-process.js'

const root = path.resolve(import.meta.dirname, '../..')
const USERS = 30

async function login(url: string, holder: DidClient): Promise<string> {
  const post = (route: string, body: unknown) =>
    fetch(`${url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  const { challenge } = (await (await post('/api/auth/challenge', { did: holder.did })).json()) as { challenge: string }
  const res = await post('/api/auth/login', { did: holder.did, challenge, signature: holder.sign(challenge) })
  assert.equal(res.status, 200)
  return ((await res.json()) as { token: string }).token
}

async function lockOwnerPid(file: string): Promise<number> {
  return (JSON.parse(await readFile(file, 'utf8')) as { pid: number }).pid
}

describe('one process per embedded DATA_DIR', () => {
  let dataDir: string
  let lockFile: string
  const servers: RunningServer[] = []
  const holders = Array.from({ length: USERS }, () => new DidClient())
  const tokens: string[] = []

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-lock-proc-'))
    lockFile = path.join(dataDir, 'pglite.lock')
  })
  after(async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL')
    await rm(dataDir, { recursive: true, force: true })
  })

  it('refuses a second server and the migrate CLI on the same DATA_DIR while the first keeps serving', async () => {
    const first = await startServer({ DATA_DIR: dataDir })
    servers.push(first)
    const second = await runServerToExit({ DATA_DIR: dataDir, PORT: '0' })
    assert.equal(second.code, 2, `the second server did not refuse to start:\n${second.output}`)
    assert.ok(second.output.includes(`in use by process ${first.child.pid}`), second.output)
    assert.ok(second.output.includes(dataDir), second.output)
    assert.doesNotMatch(second.output, /Server listening/)

    const migrate = spawnSync('npm', ['run', '--silent', 'migrate'], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 60_000,
    })
    assert.equal(migrate.status, 2, `${migrate.stdout}${migrate.stderr}`)
    assert.ok(migrate.stderr.includes(`in use by process ${first.child.pid}`), migrate.stderr)

    // The first one still serves, and its writes land.
    for (const holder of holders) tokens.push(await login(first.url, holder))
    assert.equal(tokens.length, USERS)
  })

  it("restarts over a SIGKILLed server's stale lock with every acknowledged user there", async () => {
    const killed = servers[0]!
    killed.child.kill('SIGKILL')
    await killed.exited
    assert.equal(await lockOwnerPid(lockFile), killed.child.pid, 'the killed server leaves its lock behind')

    const restarted = await startServer({ DATA_DIR: dataDir })
    servers.push(restarted)
    assert.equal(await lockOwnerPid(lockFile), restarted.child.pid)
    for (const [i, token] of tokens.entries()) {
      const me = await fetch(`${restarted.url}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } })
      assert.equal(me.status, 200, `user ${i} acknowledged before the kill is missing`)
      assert.equal(((await me.json()) as { user: { did: string } }).user.did, holders[i]!.did)
    }
    restarted.child.kill('SIGTERM')
    assert.equal(await restarted.exited, 0)
    assert.equal(existsSync(lockFile), false, 'a clean shutdown removes the lock')
  })

  it('starts over a lock file naming a process that is gone', async () => {
    const gone = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
    await new Promise((resolve) => gone.on('exit', resolve))
    await writeFile(
      lockFile,
      `${JSON.stringify({ pid: gone.pid, host: os.hostname(), started_at: new Date().toISOString(), token: 'crashed' })}\n`,
    )
    const server = await startServer({ DATA_DIR: dataDir })
    servers.push(server)
    assert.equal((await fetch(`${server.url}/api/health`)).status, 200)
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0)
    assert.equal(existsSync(lockFile), false)
  })

  it('lets exactly one of several starters racing on a stale lock win, round after round', async (t) => {
    const gone = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
    await new Promise((resolve) => gone.on('exit', resolve))
    const racers = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/lock-racer.ts'], {
        cwd: root,
        stdio: ['pipe', 'pipe', 'inherit'],
      })
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
      const next = async () => String((await lines.next()).value)
      return { child, next, exited: new Promise((resolve) => child.on('exit', resolve)) }
    })
    t.after(() => {
      for (const racer of racers) if (racer.child.exitCode === null) racer.child.kill('SIGKILL')
    })
    for (const racer of racers) assert.equal(await racer.next(), 'ready')
    // The window between judging a lock stale and replacing it is short: many rounds to hit it.
    for (let round = 0; round < 60; round++) {
      const dir = path.join(dataDir, `raced-${round}`)
      await writeFile(
        `${dir}.lock`,
        `${JSON.stringify({ pid: gone.pid, host: os.hostname(), started_at: new Date().toISOString(), token: 'crashed' })}\n`,
      )
      for (const racer of racers) racer.child.stdin!.write(`go ${dir}\n`)
      const answers = await Promise.all(racers.map((racer) => racer.next()))
      const winners = racers.filter((_, i) => answers[i] === 'won')
      assert.equal(winners.length, 1, `round ${round}:\n${answers.join('\n')}`)
      for (const answer of answers.filter((a) => a !== 'won'))
        assert.match(answer, new RegExp(`^refused .*in use by process ${winners[0]!.child.pid}`))
      for (const racer of racers) racer.child.stdin!.write('release\n')
      for (const racer of racers) assert.equal(await racer.next(), 'released')
      assert.equal(existsSync(`${dir}.lock`), false)
    }
    for (const racer of racers) racer.child.stdin!.end()
    await Promise.all(racers.map((racer) => racer.exited))
  })
})
