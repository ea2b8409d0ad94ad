/**
 * One test file in its own process group (node --test, spec reporter), for scripts/run-tests.ts.
 * --test-force-exit: once its tests are done the file's process ends even if something it started
 * still holds it open; whatever is left in its group (a server process a helper spawned) is killed
 * and named in the report. A file over its time limit is cancelled (SIGTERM: the runner reports
 * the tests it cancels), then killed with everything in its group.
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'

export interface TestFileResult {
  pass: number
  fail: number
  cancelled: number
  code: number
  /** Why the file was killed, if it was. */
  killed?: string
  /** Command lines of what the file left running (then killed). */
  leftBehind: string[]
  /** A header line (file, seconds, what happened), then the runner's output. */
  output: string
}

export interface TestFileOptions {
  cwd: string
  env: Record<string, string>
  timeoutMs: number
  /** After SIGTERM, the group has this long before SIGKILL. */
  termGraceMs?: number
  /** node --test-timeout: one test's limit. */
  testTimeoutMs?: number
}

/** Process groups of the files running now (killRunningTestFiles ends them on an interrupt). */
const running = new Set<number>()

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

export function killRunningTestFiles(): void {
  for (const pid of running) killGroup(pid)
}

/**
 * What is still running in the group `pid` (Linux /proc), as command lines. esbuild's service
 * process (tsx's transformer) ends by itself once its parent has gone, so it is not counted.
 */
export function leftInGroup(pid: number): string[] {
  if (!existsSync('/proc')) return []
  const left: string[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // After the command's closing parenthesis: state, ppid, pgrp.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
      if (pgrp !== pid) continue
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()
      if (command && !/esbuild.* --service/.test(command)) left.push(command.slice(0, 160))
    } catch {
      // Gone meanwhile.
    }
  }
  return left
}

const count = (out: string, name: string) =>
  Number([...out.matchAll(new RegExp(`^ℹ ${name} (\\d+)$`, 'gm'))].at(-1)?.[1] ?? 0)

export function runTestFile(file: string, options: TestFileOptions): Promise<TestFileResult> {
  return new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        '--test-force-exit',
        `--test-timeout=${options.testTimeoutMs ?? 300_000}`,
        '--test-reporter=spec',
        file,
      ],
      {
        cwd: options.cwd,
        env: options.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    )
    const pid = child.pid!
    running.add(pid)
    let out = ''
    let killed: string | undefined
    let killTimer: NodeJS.Timeout | undefined
    const timer = setTimeout(() => {
      killed = `did not finish within ${Math.round(options.timeoutMs / 1000)} s (TEST_FILE_TIMEOUT_MS); cancelled, then killed with what it started`
      child.kill('SIGTERM')
      killTimer = setTimeout(() => killGroup(pid), options.termGraceMs ?? 15_000)
    }, options.timeoutMs)
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      clearTimeout(killTimer)
      running.delete(pid)
      // Whatever the file left behind in its group (a server it spawned) goes with it.
      const leftBehind = killed ? [] : leftInGroup(pid)
      killGroup(pid)
      const seconds = ((Date.now() - started) / 1000).toFixed(1)
      const notes = [
        killed ? `KILLED: ${killed}` : '',
        leftBehind.length ? `left processes running (killed): ${leftBehind.join(' | ')}` : '',
      ].filter(Boolean)
      const header = `--- ${file} (${seconds} s)${notes.length ? ` ${notes.join('; ')}` : ''}`
      resolve({
        pass: count(out, 'pass'),
        fail: count(out, 'fail') + (killed ? 1 : 0),
        cancelled: count(out, 'cancelled'),
        code: killed ? 1 : (code ?? (signal ? 1 : 0)),
        ...(killed ? { killed } : {}),
        leftBehind,
        output: `${header}\n${out}`,
      })
    })
  })
}
