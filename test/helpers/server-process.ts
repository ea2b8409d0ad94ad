import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '../..')

/** The service's entry point, as `npm start` runs it (compiled there; from source here). */
export const ENTRY = 'src/main.ts'

/**
 * Generous: a start on a machine whose cores are busy with other work is many times slower;
 * waiting longer costs nothing when it is fast, and a server that never starts is killed, not left behind.
 */
export const START_TIMEOUT_MS = 180_000

export interface RunningServer {
  child: ChildProcess
  url: string
  output: () => string
  exited: Promise<number | null>
}

/** Every server process this test file started: killed when the file's process ends, however it ends. */
const started = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

function track(child: ChildProcess): Promise<number | null> {
  started.add(child)
  return new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      started.delete(child)
      resolve(code)
    }),
  )
}

/**
 * Starts the service's entry (src/main.ts) as its own process (as `npm start` does) and waits
 * until it listens. One that does not start in time, or exits first, is killed and reported with
 * its output: it is never left running. `preload`: modules imported before the server (after
 * tsx), e.g. test/helpers/clock-shift.ts.
 */
export async function startServer(
  env: Record<string, string>,
  options: { preload?: string[]; timeoutMs?: number } = {},
): Promise<RunningServer> {
  const preload = (options.preload ?? []).flatMap((module) => ['--import', module])
  const child = spawn(process.execPath, ['--import', 'tsx', ...preload, ENTRY], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  const exited = track(child)
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`server did not start within ${(options.timeoutMs ?? START_TIMEOUT_MS) / 1000} s:\n${out}`)),
        options.timeoutMs ?? START_TIMEOUT_MS,
      )
      const check = () => {
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
        if (match) {
          clearTimeout(timer)
          resolve(match[1]!)
        }
      }
      child.stdout!.on('data', check)
      void exited.then((code) => {
        clearTimeout(timer)
        reject(new Error(`server exited with ${code}:\n${out}`))
      })
    })
    return { child, url, output: () => out, exited }
  } catch (error) {
    await stopProcess(child, exited)
    throw error
  }
}

/** SIGTERM (the server drains), then SIGKILL if it has not exited within `graceMs`. */
export async function stopProcess(child: ChildProcess, exited: Promise<unknown>, graceMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

/**
 * Runs the server entry point expecting it to exit (bad configuration, data directory in use).
 * One still running after `timeoutMs` is killed and reported with code null.
 * `node`: another Node.js binary to run it with (the runtime check's test).
 */
export function runServerToExit(
  env: Record<string, string>,
  timeoutMs = START_TIMEOUT_MS,
  options: { node?: string; preload?: string[] } = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const preload = (options.preload ?? []).flatMap((module) => ['--import', module])
    const child = spawn(options.node ?? process.execPath, ['--import', 'tsx', ...preload, ENTRY], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
    })
    let output = ''
    child.stdout.on('data', (c: Buffer) => (output += c.toString()))
    child.stderr.on('data', (c: Buffer) => (output += c.toString()))
    const exited = track(child)
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    void exited.then((code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}
