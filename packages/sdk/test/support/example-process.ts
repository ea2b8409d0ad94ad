/**
 * A README example run as a user runs it: `node examples/<name>.mjs` with the Node running the
 * tests (process.execPath), no loader, no flags, no NODE_OPTIONS, in the packed SDK's project.
 * Its output can be awaited line by line (a verifier example prints its request, then waits),
 * and it is stopped by `stop()` whatever happened.
 */
import { spawn } from 'node:child_process'
import { plainEnv, type Run } from './packed-sdk.js'

export interface ExampleProcess {
  /** Resolves with the first match of `pattern` in stdout; rejects if the process ends without one. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>
  /** Writes a line to its stdin (an answer to its question). */
  answer(line: string): void
  exited: Promise<Run>
  stop(): void
}

export function startExample(
  file: string,
  args: string[],
  o: { cwd: string; env: Record<string, string> },
): ExampleProcess {
  const child = spawn(process.execPath, [file, ...args], {
    cwd: o.cwd,
    env: plainEnv(o.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  let closed = false
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void; reject: (e: Error) => void }[] = []
  const check = () => {
    for (const w of [...waiters]) {
      const m = stdout.match(w.pattern)
      if (m) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve(m)
      }
    }
  }
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString()
    check()
  })
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
  const exited = new Promise<Run>((resolve) => {
    child.on('error', (e) => {
      stderr += String(e)
    })
    child.on('close', (code) => {
      closed = true
      check()
      for (const w of waiters.splice(0))
        w.reject(
          new Error(`${file} ended (${code}) without printing ${w.pattern}\nstdout: ${stdout}\nstderr: ${stderr}`),
        )
      resolve({ code, stdout, stderr })
    })
  })
  return {
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const m = stdout.match(pattern)
        if (m) return resolve(m)
        if (closed)
          return reject(new Error(`${file} ended without printing ${pattern}\nstdout: ${stdout}\nstderr: ${stderr}`))
        waiters.push({ pattern, resolve, reject })
      }),
    answer: (line) => child.stdin.write(`${line}\n`),
    exited,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill()
    },
  }
}

/** Runs an example to its end. */
export async function runExample(
  file: string,
  args: string[],
  o: { cwd: string; env: Record<string, string> },
): Promise<Run> {
  const p = startExample(file, args, o)
  try {
    return await p.exited
  } finally {
    p.stop()
  }
}
