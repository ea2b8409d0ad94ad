/**
 * One process at a time on an embedded database directory. PGlite keeps its buffers and WAL
 * position in its own memory, so a second process on the same files silently overwrites the
 * first one's writes. The lock is a file beside the directory naming its owner, taken the way
 * PostgreSQL takes postmaster.pid (src/backend/utils/init/miscinit.c, CreateLockFile): created
 * exclusively, and a file whose process is gone is stale and taken over. Node has no flock(2)
 * without a native addon; like postmaster.pid, this is safe among processes of one host.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import fs from 'node:fs/promises'
import os from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { DataDirInUseError } from '../errors.js'

interface Owner {
  pid: number
  host: string
  started_at: string
  /** Linux: the kernel's boot id and the process start time in clock ticks since boot (proc(5)), to tell a reused PID. */
  boot_id?: string
  process_start?: string
  /** Tells this acquisition from any other, whatever its PID. */
  token: string
}

export interface DataDirLock {
  readonly path: string
  /** Removes the lock file if it is still this process's. Call after the database is closed. */
  release(): Promise<void>
}

/** Lock files this process holds or is taking: a second open here is refused like one from elsewhere. */
const heldHere = new Set<string>()
const ATTEMPTS = 100

/** Takes `<dir>.lock`, or throws DataDirInUseError naming the process that holds it. */
export async function lockDataDir(dir: string): Promise<DataDirLock> {
  const file = `${dir}.lock`
  if (heldHere.has(file)) throw new DataDirInUseError(`The embedded database in ${dir} is already open in this process`)
  heldHere.add(file)
  try {
    return await acquire(dir, file)
  } catch (error) {
    heldHere.delete(file)
    throw error
  }
}

async function acquire(dir: string, file: string): Promise<DataDirLock> {
  const me: Owner = {
    pid: process.pid,
    host: os.hostname(),
    started_at: new Date().toISOString(),
    boot_id: bootId(),
    process_start: processStart(process.pid),
    token: randomBytes(16).toString('hex'),
  }
  const body = `${JSON.stringify(me)}\n`
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await createExclusive(file, body)) return { path: file, release: () => release(file, me.token) }
    const owner = await readOwner(file)
    if (owner === 'missing') continue
    if (owner === 'unreadable') {
      throw new DataDirInUseError(
        `The embedded database in ${dir} is locked by ${file}, which names no owner this service wrote: if no process uses ${dir}, remove ${file}`,
      )
    }
    const state = ownerState(owner)
    if (state === 'alive') {
      throw new DataDirInUseError(
        `The embedded database in ${dir} is in use by process ${owner.pid} on ${owner.host} (since ${owner.started_at}): one process at a time may open it. Stop that process, or set DATABASE_URL to share a PostgreSQL server between instances (lock: ${file})`,
      )
    }
    if (state === 'elsewhere') {
      throw new DataDirInUseError(
        `The embedded database in ${dir} is locked by process ${owner.pid} on host ${owner.host} (since ${owner.started_at}), which cannot be checked from ${me.host}: if no process there uses ${dir}, remove ${file}`,
      )
    }
    await takeOver(file, owner.token, body)
  }
  throw new DataDirInUseError(
    `Could not take the lock ${file} on the embedded database in ${dir}: other processes kept taking it`,
  )
}

/**
 * Publishes the whole file at once: written and flushed under a private name, then hard-linked to
 * the lock's name, which fails if it exists (link(2) is atomic, so no reader sees it half-written).
 * On file systems without hard links, O_EXCL creation (a reader may then see it empty: unreadable).
 */
async function createExclusive(file: string, body: string): Promise<boolean> {
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`
  await writeFlushed(temp, body, 'wx')
  try {
    await fs.link(temp, file)
    return true
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false
    if (!['EPERM', 'ENOTSUP', 'ENOSYS', 'EXDEV'].includes(errorCode(error) ?? '')) throw error
  } finally {
    await fs.rm(temp, { force: true })
  }
  try {
    await writeFlushed(file, body, 'wx')
    return true
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false
    throw error
  }
}

async function writeFlushed(file: string, body: string, flags: string): Promise<void> {
  const handle = await fs.open(file, flags, 0o600)
  try {
    await handle.writeFile(body)
    await handle.sync()
  } finally {
    await handle.close()
  }
}

async function readOwner(file: string): Promise<Owner | 'missing' | 'unreadable'> {
  let text
  try {
    text = await fs.readFile(file, 'utf8')
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'missing'
    throw error
  }
  try {
    const owner = JSON.parse(text) as Owner
    if (
      Number.isSafeInteger(owner.pid) &&
      owner.pid > 0 &&
      typeof owner.host === 'string' &&
      typeof owner.token === 'string'
    )
      return owner
  } catch {
    // fall through
  }
  return 'unreadable'
}

function ownerState(owner: Owner): 'alive' | 'gone' | 'elsewhere' {
  if (owner.host !== os.hostname()) return 'elsewhere'
  // Our own PID, in a file this process is not holding (heldHere refused that earlier): a
  // previous process with the same number, as a container's server restarts as the same PID.
  // PostgreSQL reasons the same way.
  if (owner.pid === process.pid) return 'gone'
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    if (errorCode(error) === 'ESRCH') return 'gone'
  }
  // The PID exists; after a reboot, or with another start time, it is another process.
  const boot = bootId()
  if (owner.boot_id !== undefined && boot !== undefined && owner.boot_id !== boot) return 'gone'
  const start = processStart(owner.pid)
  if (owner.process_start !== undefined && start !== undefined && owner.process_start !== start) return 'gone'
  return 'alive'
}

/**
 * Removes a stale lock file so the caller can create its own. Two starters may both judge it
 * stale: the removal happens under a guard file, and only while the lock is still the stale one,
 * so the second cannot remove the lock the first has just created.
 */
async function takeOver(file: string, staleToken: string, body: string): Promise<void> {
  const guard = `${file}.takeover`
  if (!(await createExclusive(guard, body))) {
    // Another starter is taking over; a guard whose process is gone was left by one that died there.
    const taker = await readOwner(guard)
    if (typeof taker === 'object' && ownerState(taker) === 'gone') await fs.rm(guard, { force: true })
    else await sleep(50)
    return
  }
  try {
    const current = await readOwner(file)
    if (typeof current === 'object' && current.token === staleToken) await fs.rm(file, { force: true })
  } finally {
    await fs.rm(guard, { force: true })
  }
}

async function release(file: string, token: string): Promise<void> {
  if (!heldHere.delete(file)) return
  const current = await readOwner(file)
  if (typeof current === 'object' && current.token === token) await fs.rm(file, { force: true })
}

function bootId(): string | undefined {
  return readProc('/proc/sys/kernel/random/boot_id')?.trim()
}

/** Field 22 of /proc/<pid>/stat; the command name before it may hold spaces and parentheses. */
function processStart(pid: number): string | undefined {
  const stat = readProc(`/proc/${pid}/stat`)
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
}

function readProc(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}
