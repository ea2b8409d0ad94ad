/**
 * Every `cps` line of the READMEs, run as written: the bash blocks of packages/cli/README.md and
 * of the root README's walk-throughs ("Walk-through: sign in with a DID" up to "Errors") run in
 * order, each README as one bash script (`set -e`, so a failing line stops it), against live
 * services on real ports: plain http and https servers started here, and the https instance the
 * root README starts itself (`npm start &`). The scripts run in a directory inside the project
 * (.tmp/), as a reader runs them from a clone, so `npx cps` and `npm start` find the project.
 * Only the addresses are substituted (each substitution must apply, so a changed README is
 * noticed). `npx` is wrapped by a shell function that records each `npx cps` call: its README
 * line, exit code and output. Every README line with `npx cps` must have been called, every call
 * must exit 0, and a line's `# → text` comment (`…` for any text) must be in what it printed.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type AddressInfo } from 'node:net'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { startHttpServer, startHttpsServer, type HttpsServer } from './helpers/cps.js'

const root = path.resolve(import.meta.dirname, '../../..')

interface ReadmeLine {
  /** `README.md:230`: the file and the line the command starts on. */
  at: string
  text: string
  /** The `# → …` comment: what the line prints. */
  expect?: string
}

/** The bash blocks of `file` between the headings `from` and `to` (the whole file without them) as one script, with a marker before each `npx cps` command. */
function readmeScript(
  markdown: string,
  file: string,
  range: { from?: string; to?: string } = {},
): { script: string; lines: ReadmeLine[] } {
  const all = markdown.split('\n')
  const start = range.from ? all.findIndex((l) => l.startsWith('#') && l.includes(range.from!)) : 0
  const end = range.to ? all.findIndex((l, i) => i > start && l.startsWith('#') && l.includes(range.to!)) : all.length
  assert.ok(start >= 0 && end > start, `${file}: the section "${range.from}" … "${range.to}" is not there`)
  const out: string[] = []
  const lines: ReadmeLine[] = []
  let inBash = false
  for (let i = start; i < end; i++) {
    const line = all[i]!
    if (!inBash) {
      inBash = line.trim() === '```bash'
      continue
    }
    if (line.trim() === '```') {
      inBash = false
      continue
    }
    // One command: this line and those its trailing backslashes continue it.
    let j = i
    while (all[j]!.endsWith('\\') && j + 1 < end) j++
    const group = all.slice(i, j + 1)
    const code = group.map((l) => l.replace(/\s#\s.*$/, '')).join('\n')
    if (/\bnpx cps\b/.test(code)) {
      const at = `${file}:${i + 1}`
      const expect = /\s#\s.*?→\s*(.+)$/.exec(group.at(-1)!)?.[1]?.trim()
      lines.push({ at, text: group.join('\n'), ...(expect ? { expect } : {}) })
      out.push(`__L='${at}'`)
    }
    out.push(...group)
    i = j
  }
  return { script: out.join('\n'), lines }
}

/** Replaces each `[from, to]`, every occurrence; each must occur. */
function substitute(script: string, file: string, pairs: [string, string][]): string {
  for (const [from, to] of pairs) {
    assert.ok(
      script.includes(from),
      `${file} no longer has "${from}": update the substitutions of readme-lines.test.ts`,
    )
    script = script.split(from).join(to)
  }
  return script
}

// `npx cps …` as the README says, each call recorded under $CPS_LOG. `set -e` without pipefail,
// as a reader's shell runs (`curl … | head -c 200` ends curl with SIGPIPE); a cps call that fails
// inside a pipeline is still recorded with its exit code.
const PRELUDE = String.raw`set -e
npx() {
  if [ "$1" != cps ]; then command npx "$@"; return; fi
  local out="$CPS_LOG/call.$BASHPID.$RANDOM$RANDOM" rc=0
  printf '%s\n' "$__L" > "$out.line"
  command npx "$@" > "$out.out" 2> "$out.err" < /dev/null || rc=$?
  printf '%s\n' "$rc" > "$out.rc"
  cat "$out.out"; cat "$out.err" >&2
  return $rc
}
`

interface Call {
  at: string
  code: number
  stdout: string
  stderr: string
}

interface ScriptRun {
  code: number | null
  output: string
  calls: Call[]
  stop: () => Promise<void>
}

/** Runs `script` in `cwd` as its own process group (what it starts in the background is stopped with it). */
async function runScript(script: string, cwd: string, env: Record<string, string>): Promise<ScriptRun> {
  const log = path.join(cwd, '.cps-calls')
  await mkdir(log, { recursive: true })
  const file = path.join(cwd, '.readme.sh')
  await writeFile(file, `${PRELUDE}\n${script}\n`)
  const child = spawn('bash', [file], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', CPS_LOG: log, ...env },
  })
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  const stop = () => stopGroup(child.pid!)
  // 'exit', not 'close': a server the script started in the background keeps the pipes open.
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', (c) => resolve(c))
  })
  const calls: Call[] = []
  for (const name of (await readdir(log)).filter((n) => n.endsWith('.line'))) {
    const base = path.join(log, name.slice(0, -'.line'.length))
    const read = (ext: string) => readFile(`${base}.${ext}`, 'utf8').catch(() => '')
    const [at, rc, stdout, stderr] = await Promise.all([read('line'), read('rc'), read('out'), read('err')])
    calls.push({ at: at.trim(), code: rc.trim() === '' ? -1 : Number(rc), stdout, stderr })
  }
  return { code, output, calls, stop }
}

/** SIGTERM to the group, then SIGKILL if it is still there after polling a while. */
async function stopGroup(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(-pid, 0)
      return true
    } catch {
      return false
    }
  }
  if (!alive()) return
  process.kill(-pid, 'SIGTERM')
  for (let i = 0; i < 300 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 100))
  if (alive()) process.kill(-pid, 'SIGKILL')
}

/** `received … into …` as a pattern: `…` is any text. */
function pattern(expect: string): RegExp {
  return new RegExp(
    expect
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*'),
  )
}

/** Every problem of the run, one line each (empty: all good). */
function problems(lines: ReadmeLine[], run: ScriptRun): string[] {
  const found: string[] = []
  for (const line of lines) {
    const calls = run.calls.filter((c) => c.at === line.at)
    if (!calls.length) {
      found.push(`${line.at}: never ran: ${line.text}`)
      continue
    }
    for (const call of calls.filter((c) => c.code !== 0))
      found.push(`${line.at}: exit ${call.code}: ${line.text}\n  ${call.stderr.trim()}`)
    if (line.expect && !calls.some((c) => pattern(line.expect!).test(c.stdout))) {
      found.push(
        `${line.at}: does not print "${line.expect}": ${line.text}\n  printed: ${calls.map((c) => c.stdout.trim()).join(' | ')}`,
      )
    }
  }
  return found
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('the READMEs: every cps line runs as written', () => {
  let dir: string
  let http: Omit<HttpsServer, 'caFile'>
  let https: HttpsServer
  const runs: ScriptRun[] = []

  before(async () => {
    await mkdir(path.join(root, '.tmp'), { recursive: true })
    dir = await mkdtemp(path.join(root, '.tmp', 'cps-readme-'))
    ;[http, https] = await Promise.all([startHttpServer(dir), startHttpsServer(dir)])
  })

  after(async () => {
    await Promise.all(runs.map((r) => r.stop()))
    await Promise.all([http?.stop(), https?.stop()])
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('packages/cli/README.md and the root README walk-throughs: each cps line exits 0 and prints what the README says', {
    timeout: 12 * 60_000,
  }, async () => {
    const cliFile = 'packages/cli/README.md'
    const cli = readmeScript(await readFile(path.join(root, cliFile), 'utf8'), cliFile)
    const mainFile = 'docs/walkthroughs.md'
    const main = readmeScript(await readFile(path.join(root, mainFile), 'utf8'), mainFile, {
      from: 'Walk-through: sign in with a DID',
      to: 'Errors',
    })
    assert.ok(cli.lines.length >= 10, `${cli.lines.length} cps lines in ${cliFile}`)
    assert.ok(main.lines.length >= 20, `${main.lines.length} cps lines in ${mainFile}`)

    const cliDir = path.join(dir, 'cli-readme')
    const mainDir = path.join(dir, 'main-readme')
    await Promise.all([mkdir(cliDir), mkdir(mainDir)])
    const tlsPort = await freePort()
    const cliScript = substitute(cli.script, cliFile, [
      ['export CPS_BASE_URL=http://127.0.0.1:3000', `export CPS_BASE_URL=${http.baseUrl}`],
      ['https://127.0.0.1:3443', https.baseUrl],
      ['$PWD/tls-cert.pem', https.caFile],
    ])
    const mainScript = substitute(main.script, mainFile, [
      ['BASE=http://127.0.0.1:3000', `BASE=${http.baseUrl}`],
      ['3443', String(tlsPort)],
    ])
    const [cliRun, mainRun] = await Promise.all([
      runScript(cliScript, cliDir, { HOME: cliDir }),
      runScript(mainScript, mainDir, { HOME: mainDir }),
    ])
    runs.push(cliRun, mainRun)
    await Promise.all(runs.map((r) => r.stop()))

    const found = [...problems(cli.lines, cliRun), ...problems(main.lines, mainRun)]
    const tail = (run: ScriptRun) => run.output.split('\n').slice(-40).join('\n')
    assert.deepEqual(
      found,
      [],
      `${found.join('\n')}\n--- ${cliFile} (exit ${cliRun.code}):\n${tail(cliRun)}\n--- ${mainFile} (exit ${mainRun.code}):\n${tail(mainRun)}`,
    )
    assert.equal(cliRun.code, 0, tail(cliRun))
    assert.equal(mainRun.code, 0, tail(mainRun))
  })
})
