/**
 * scripts/lib/test-file-runner.ts, which `npm test` runs every file through: a file that hangs is
 * cancelled and killed with what it started, a file that leaves a process behind is reported and
 * the process killed, and an ordinary file passes through untouched. The files are written to a
 * temporary directory for the run.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { runTestFile } from '../../scripts/lib/test-file-runner.js'

const root = path.resolve(import.meta.dirname, '../..')

/** Whether a process whose command line contains `marker` is running (Linux /proc). */
async function running(marker: string): Promise<boolean> {
  const { readdir, readFile } = await import('node:fs/promises')
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const command = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    if (command.replaceAll('\0', ' ').includes(marker)) return true
  }
  return false
}

/** Polls until no such process runs (SIGKILL is delivered asynchronously); false if one still does after a minute. */
async function gone(marker: string): Promise<boolean> {
  for (let i = 0; i < 600; i++) {
    if (!(await running(marker))) return true
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return false
}

describe('test file runner', { skip: process.platform !== 'linux' ? 'reads /proc' : false }, () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'test-file-runner-'))
  })
  after(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  const options = () => ({ cwd: root, env: { PATH: process.env.PATH ?? '' }, timeoutMs: 600_000, termGraceMs: 2000 })
  // A sleep with a marker argument no other process has: `sleep` ignores nothing, so the marker is a duration.
  const marker = () => String(900_000 + Math.floor(Math.random() * 90_000))

  it('passes an ordinary file through, with its counts', async () => {
    const file = path.join(dir, 'ordinary.test.mjs')
    await writeFile(file, "import { it } from 'node:test'\nit('one', () => {})\nit('two', () => {})\n")
    const result = await runTestFile(file, options())
    assert.equal(result.code, 0, result.output)
    assert.equal(result.pass, 2)
    assert.equal(result.fail, 0)
    assert.equal(result.killed, undefined)
    assert.deepEqual(result.leftBehind, [])
    assert.match(result.output, /^--- .*ordinary\.test\.mjs \(\d+\.\d s\)\n/)
  })

  it('cancels and kills a file that does not finish in time, with the process it started', async () => {
    const seconds = marker()
    const file = path.join(dir, 'hangs.test.mjs')
    await writeFile(
      file,
      `import { it } from 'node:test'\nimport { spawn } from 'node:child_process'\nit('hangs', async () => { spawn('sleep', ['${seconds}'], { stdio: 'ignore' }); await new Promise(() => setInterval(() => {}, 1000)) })\n`,
    )
    // Long enough for the file's tests to have started on a loaded machine; the test never ends.
    const result = await runTestFile(file, { ...options(), timeoutMs: 20_000 })
    assert.equal(result.code, 1)
    assert.ok(result.fail >= 1)
    assert.match(result.killed ?? '', /did not finish within 20 s \(TEST_FILE_TIMEOUT_MS\)/)
    assert.match(result.output, /KILLED: did not finish/)
    assert.ok(await gone(`sleep ${seconds}`), 'the process the file started was killed with it')
  })

  it('reports and kills what a file leaves running once its tests are done', async () => {
    const seconds = marker()
    const file = path.join(dir, 'leaks.test.mjs')
    await writeFile(
      file,
      `import { it } from 'node:test'\nimport { spawn } from 'node:child_process'\nit('leaks', () => { spawn('sleep', ['${seconds}'], { stdio: 'ignore' }) })\n`,
    )
    const result = await runTestFile(file, options())
    assert.equal(result.code, 0, result.output)
    assert.equal(result.pass, 1)
    assert.deepEqual(result.leftBehind, [`sleep ${seconds}`])
    assert.match(result.output, new RegExp(`left processes running \\(killed\\): sleep ${seconds}`))
    assert.ok(await gone(`sleep ${seconds}`), 'the process left behind was killed')
  })
})
