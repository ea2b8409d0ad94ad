/**
 * The service's entry point (src/main.ts, what `npm start` runs compiled): the Node.js check
 * before anything else is loaded, and a start-up that reports its phases and ends with the URLs.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { runtimeProblem } from '../../src/runtime-version.js'
import { runServerToExit, startServer, stopProcess, type RunningServer } from '../helpers/server-process.js'

const OLD_VERSION = path.resolve(import.meta.dirname, '../helpers/old-node-version.ts')

/** A Node.js older than 24.7 on this machine (Debian's /usr/bin/node is 20), or undefined. */
function olderNode(): { path: string; version: string } | undefined {
  for (const candidate of [process.env.TEST_OLD_NODE, '/usr/bin/node', '/usr/local/bin/node']) {
    if (!candidate || !existsSync(candidate)) continue
    const result = spawnSync(candidate, ['--version'], { encoding: 'utf8' })
    const version = result.stdout?.trim().replace(/^v/, '')
    if (result.status === 0 && version && runtimeProblem(version)) return { path: candidate, version }
  }
  return undefined
}

interface LogLine {
  msg: string
  phase?: string
  ms?: number
  [key: string]: unknown
}

function logLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine)
}

describe('server entry point', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'svc-startup-'))
  })
  after(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  const old = olderNode()
  it(`refuses a Node.js older than 24.7 before loading the service (${old ? `${old.path}, ${old.version}` : 'none installed'})`, {
    skip: old ? false : 'no Node.js older than 24.7 on this machine (TEST_OLD_NODE)',
  }, async () => {
    const dataDir = path.join(dir, 'old-node')
    const { code, output } = await runServerToExit({ DATA_DIR: dataDir, PORT: '0' }, 120_000, { node: old!.path })
    assert.equal(code, 2, output)
    assert.match(
      output,
      new RegExp(
        `Node\\.js 24\\.7 or later is required \\(this is ${old!.version.replace(/\./g, '\\.')}\\); run it through npm`,
      ),
    )
    // The message is the only output: no stack from an import the old runtime cannot load.
    assert.doesNotMatch(output, /SyntaxError|does not provide an export|at ModuleJob/)
    assert.equal(existsSync(dataDir), false, 'the service itself never ran')
  })

  it('refuses a runtime that reports 24.6 with exit code 2 and the way out, before opening anything', async () => {
    const dataDir = path.join(dir, 'reported-old')
    const { code, output } = await runServerToExit(
      { DATA_DIR: dataDir, PORT: '0', TEST_NODE_VERSION: '24.6.9' },
      120_000,
      { preload: [OLD_VERSION] },
    )
    assert.equal(code, 2, output)
    assert.equal(
      output.trim(),
      'Node.js 24.7 or later is required (this is 24.6.9); run it through npm (npm start, npm test), which uses the Node.js that npm ci installed',
    )
    assert.equal(existsSync(dataDir), false, 'the service itself never ran')
  })

  describe('start-up log', () => {
    let server: RunningServer | undefined
    const secrets = { MASTER_KEY: 'ab'.repeat(32), ADMIN_API_KEY: 'startup-admin-key-0123456789abcdef' }
    after(async () => {
      if (server) await stopProcess(server.child, server.exited)
    })

    it('names each phase with its duration, then the API, docs and console URLs, which answer', async () => {
      server = await startServer({ DATA_DIR: path.join(dir, 'data'), ...secrets })
      // The last line comes right after "listening": wait for it rather than for a time.
      for (let i = 0; i < 200 && !/service ready/.test(server.output()); i++)
        await new Promise((resolve) => setTimeout(resolve, 50))
      const lines = logLines(server.output())
      const phases = lines.filter((line) => line.phase !== undefined)
      assert.deepEqual(
        phases.map((line) => line.phase),
        ['modules', 'config', 'database open', 'migrations applied', 'adapters ready', 'app', 'listen'],
      )
      for (const line of phases) assert.ok(Number.isInteger(line.ms) && line.ms! >= 0, `${line.phase}: ${line.ms}`)
      assert.equal(phases.find((line) => line.phase === 'database open')?.engine, 'pglite')
      assert.equal(phases.find((line) => line.phase === 'adapters ready')?.content, 'embedded')

      const ready = lines.at(-1)!
      assert.match(
        ready.msg,
        /^service ready in \d+\.\d s: API http:\/\/127\.0\.0\.1:\d+\/api, docs http:\/\/127\.0\.0\.1:\d+\/api\/docs, console http:\/\/127\.0\.0\.1:\d+\/app$/,
      )
      assert.equal(ready.api, `${server.url}/api`)
      assert.equal(ready.docs, `${server.url}/api/docs`)
      assert.equal(ready.console, `${server.url}/app`)
      assert.equal((await fetch(`${server.url}/api/health`)).status, 200)
      const docs = await fetch(ready.docs as string)
      assert.equal(docs.status, 200)
      assert.match(await docs.text(), /<html/i)
      // The console is served, or answers 503 while its bundle is not built: never a 404.
      assert.ok([200, 503].includes((await fetch(ready.console as string)).status))

      for (const value of Object.values(secrets))
        assert.ok(!server.output().includes(value), 'secrets stay out of the start-up log')
    })
  })
})
