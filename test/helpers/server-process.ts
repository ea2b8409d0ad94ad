import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '../..')

export interface RunningServer {
  child: ChildProcess
  url: string
  output: () => string
  exited: Promise<number | null>
}

/**
 * Starts `src/server.ts` as its own process (as `npm start` does) and waits until it listens.
 * `preload`: modules imported before the server (after tsx), e.g. test/helpers/clock-shift.ts.
 */
export async function startServer(env: Record<string, string>, options: { preload?: string[] } = {}): Promise<RunningServer> {
  const preload = (options.preload ?? []).flatMap((module) => ['--import', module])
  const child = spawn(process.execPath, ['--import', 'tsx', ...preload, 'src/server.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000)
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
}

/**
 * Runs the server entry point expecting it to exit (bad configuration, data directory in use).
 * One still running after `timeoutMs` is killed and reported with code null.
 */
export function runServerToExit(env: Record<string, string>, timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env } })
    let output = ''
    child.stdout.on('data', (c: Buffer) => (output += c.toString()))
    child.stderr.on('data', (c: Buffer) => (output += c.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}
