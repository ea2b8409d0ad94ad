/** A server restarted on its data directory at another address refuses to start (issue 26). */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { runServerToExit, startServer } from '../helpers/server-process.js'

describe('the server process and recorded settings', () => {
  let dataDir: string
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-settings-'))
  })
  after(() => rm(dataDir, { recursive: true, force: true }))

  it('exits with code 2 and names the setting when restarted at another address', async () => {
    const server = await startServer({ DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://first.example' })
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0)
    const refused = await runServerToExit({ DATA_DIR: dataDir, PORT: '0', PUBLIC_BASE_URL: 'http://second.example' })
    assert.equal(refused.code, 2, refused.output)
    assert.match(
      refused.output,
      /Refusing to start: PUBLIC_BASE_URL is http:\/\/second\.example but this database was set up with http:\/\/first\.example/,
    )
  })
})
