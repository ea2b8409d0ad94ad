import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtemp, stat } from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { runServerToExit, startServer, type RunningServer } from '../helpers/server-process.js'

/** The real entry point on embedded PGlite: first start, login over TCP, graceful drain, restart. */
describe('server process', () => {
  let dataDir: string
  let server: RunningServer | undefined
  const holder = new DidClient()

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-proc-'))
  })
  after(() => {
    server?.child.kill('SIGKILL')
  })

  async function login(url: string): Promise<string> {
    const { challenge } = (await (
      await fetch(`${url}/api/auth/challenge`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ did: holder.did }),
      })
    ).json()) as { challenge: string }
    const res = await fetch(`${url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ did: holder.did, challenge, signature: holder.sign(challenge) }),
    })
    assert.equal(res.status, 200)
    return ((await res.json()) as { token: string }).token
  }

  it('starts on embedded defaults, creates a 0600 master key, serves login', async () => {
    server = await startServer({ DATA_DIR: dataDir })
    const health = await fetch(`${server.url}/api/health`)
    assert.equal(health.status, 200)
    assert.equal(((await health.json()) as { checks: { database: { status: string } } }).checks.database.status, 'up')
    const mode = (await stat(path.join(dataDir, 'master.key'))).mode & 0o777
    assert.equal(mode, 0o600)
    const token = await login(server.url)
    assert.ok(token)
    assert.ok(!server.output().includes(token), 'tokens never reach the log')
  })

  it('drains an in-flight request on SIGTERM, then exits 0', async () => {
    const running = server!
    const body = JSON.stringify({ did: holder.did })
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        `${running.url}/api/auth/challenge`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = ''
          res.on('data', (c: Buffer) => (text += c.toString()))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
        },
      )
      req.on('error', reject)
      // Half the body now, SIGTERM, the rest later: the request is in flight during shutdown.
      req.write(body.slice(0, 10))
      setTimeout(() => {
        running.child.kill('SIGTERM')
        setTimeout(() => req.end(body.slice(10)), 300)
      }, 100)
    })
    const res = await response
    assert.equal(res.status, 200, res.body)
    assert.equal(JSON.parse(res.body).did, holder.did)
    assert.equal(await running.exited, 0)
    assert.match(running.output(), /draining/)
    server = undefined
  })

  it('keeps keys and data across a restart: a token from before still works', async () => {
    const first = await startServer({ DATA_DIR: dataDir })
    const token = await login(first.url)
    first.child.kill('SIGTERM')
    assert.equal(await first.exited, 0)
    server = await startServer({ DATA_DIR: dataDir })
    const me = await fetch(`${server.url}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } })
    assert.equal(me.status, 200)
    assert.equal(((await me.json()) as { user: { did: string } }).user.did, holder.did)
    server.child.kill('SIGTERM')
    await server.exited
    server = undefined
  })

  it('refuses to start on bad configuration, naming the variable', async () => {
    const secrets = {
      MASTER_KEY: 'secret-master-value-not-a-key',
      BLOCKCHAIN_PRIVATE_KEY: '0xsecret-chain-key-value',
      ADMIN_API_KEY: 'short-secret',
    }
    const { code, output } = await runServerToExit({
      DATA_DIR: dataDir,
      PORT: 'not-a-port',
      JWT_TTL_SECONDS: '-5',
      ...secrets,
    })
    assert.equal(code, 2)
    assert.match(output, /PORT must be/)
    assert.match(output, /JWT_TTL_SECONDS must be/)
    assert.match(output, /MASTER_KEY must be/)
    assert.match(output, /BLOCKCHAIN_PRIVATE_KEY must be/)
    assert.match(output, /ADMIN_API_KEY must be/)
    // Named, never echoed: a misconfigured secret still stays out of the log.
    for (const value of Object.values(secrets)) assert.ok(!output.includes(value), `${value} echoed`)
  })

  it('npm run migrate reports an up-to-date database', () => {
    const result = spawnSync('npm', ['run', '--silent', 'migrate'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { ...process.env, DATA_DIR: dataDir },
      encoding: 'utf8',
    })
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stdout, /up to date/)
  })
})
