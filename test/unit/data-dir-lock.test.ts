/**
 * The embedded data directory lock, in one process on a real temp directory. Lock files naming
 * other processes are written here by hand, in the format the lock writes. Racing processes and
 * the server itself: test/process/data-dir-lock.test.ts.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { lockDataDir } from '../../src/db/data-dir-lock.js'
import { DataDirInUseError } from '../../src/errors.js'

/** The PID of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.on('exit', resolve))
  return child.pid!
}

const owner = (fields: Record<string, unknown>) =>
  `${JSON.stringify({ host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z', token: 'someone-else', ...fields })}\n`

describe('lockDataDir', () => {
  let root: string
  let n = 0
  /** A fresh database directory path per test; its lock file is `<dir>.lock`. */
  const fresh = () => path.join(root, `db${n++}`)
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'svc-lock-'))
  })
  after(() => rm(root, { recursive: true, force: true }))

  it('creates the lock naming this process, refuses a second open here, and removes it on release', async () => {
    const dir = fresh()
    const lock = await lockDataDir(dir)
    assert.equal(lock.path, `${dir}.lock`)
    const written = JSON.parse(await readFile(lock.path, 'utf8'))
    assert.equal(written.pid, process.pid)
    assert.equal(written.host, os.hostname())
    await assert.rejects(
      lockDataDir(dir),
      (e) => e instanceof DataDirInUseError && /already open in this process/.test(e.message),
    )
    await lock.release()
    assert.equal(existsSync(lock.path), false)
    // Free again once released.
    await (await lockDataDir(dir)).release()
  })

  it('refuses a lock held by a live process of this host, naming it and the directory', async () => {
    const dir = fresh()
    // This test's parent process is alive; without a recorded start time it cannot be told from its owner.
    await writeFile(`${dir}.lock`, owner({ pid: process.ppid }))
    await assert.rejects(
      lockDataDir(dir),
      (e) =>
        e instanceof DataDirInUseError &&
        e.message.includes(`in use by process ${process.ppid}`) &&
        e.message.includes(dir),
    )
    assert.match(readFileSync(`${dir}.lock`, 'utf8'), /someone-else/, "the live owner's lock is left alone")
  })

  it('takes over a lock whose process is gone', async () => {
    const dir = fresh()
    await writeFile(`${dir}.lock`, owner({ pid: await deadPid() }))
    const lock = await lockDataDir(dir)
    assert.equal(JSON.parse(await readFile(lock.path, 'utf8')).pid, process.pid)
    await lock.release()
  })

  it("takes over a lock naming its own PID that it does not hold (a restarted container's server)", async () => {
    const dir = fresh()
    await writeFile(`${dir}.lock`, owner({ pid: process.pid }))
    const lock = await lockDataDir(dir)
    assert.notEqual(JSON.parse(await readFile(lock.path, 'utf8')).token, 'someone-else')
    await lock.release()
  })

  it('takes over a lock whose PID now belongs to another process (start time or boot differs)', {
    skip: !existsSync('/proc/self/stat') && 'needs /proc',
  }, async () => {
    for (const reused of [{ process_start: '1' }, { boot_id: '00000000-0000-0000-0000-000000000000' }]) {
      const dir = fresh()
      await writeFile(`${dir}.lock`, owner({ pid: process.ppid, ...reused }))
      await (await lockDataDir(dir)).release()
    }
  })

  it('refuses a lock from another host, and one it cannot read, telling how to clear it', async () => {
    const elsewhere = fresh()
    await writeFile(`${elsewhere}.lock`, owner({ pid: await deadPid(), host: 'another-host.example' }))
    await assert.rejects(
      lockDataDir(elsewhere),
      (e) =>
        e instanceof DataDirInUseError &&
        /another-host\.example/.test(e.message) &&
        e.message.includes(`remove ${elsewhere}.lock`),
    )
    const garbage = fresh()
    await writeFile(`${garbage}.lock`, '')
    await assert.rejects(
      lockDataDir(garbage),
      (e) => e instanceof DataDirInUseError && e.message.includes(`remove ${garbage}.lock`),
    )
  })

  it('does not remove on release a lock that is no longer its own', async () => {
    const dir = fresh()
    const lock = await lockDataDir(dir)
    await writeFile(lock.path, owner({ pid: process.ppid }))
    await lock.release()
    assert.match(await readFile(lock.path, 'utf8'), /someone-else/)
  })
})
