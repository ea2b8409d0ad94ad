/**
 * `cps` under plain `node` (issue 35 item 5): the CLI built to JavaScript (scripts/build.mjs, the
 * root's prepare) runs without tsx, on the SDK's own dist. Built here into a copy under .tmp/ (the
 * repository's dist may be in use by other processes), then run with no loader and no
 * NODE_OPTIONS: help, a local command, and a service call that reaches the SDK's client.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'

const root = path.resolve(import.meta.dirname, '../../..')

function node(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('cps built to JavaScript runs under plain node', () => {
  let dir: string
  let main: string

  before(async () => {
    await mkdir(path.join(root, '.tmp'), { recursive: true })
    dir = await mkdtemp(path.join(root, '.tmp', 'cli-build-'))
    const built = await node(['packages/cli/scripts/build.mjs', '--out-dir', path.join(dir, 'dist')])
    assert.equal(built.code, 0, built.stdout + built.stderr)
    main = path.join(dir, 'dist', 'main.js')
  })
  after(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined))

  it('help, keys new and a service call, with no tsx anywhere', async () => {
    const help = await node([main, '--help'])
    assert.equal(help.code, 0, help.stderr)
    assert.match(help.stdout, /^Usage: cps <command>/)
    assert.match(help.stdout, /cps wallet accept/)

    const made = await node([main, 'keys', 'new', '--name', 'plain', '--json'], { HOME: dir })
    assert.equal(made.code, 0, made.stderr)
    assert.match(JSON.parse(made.stdout).did, /^did:key:z6Mk/)

    // The SDK's client (its dist) is loaded and used: an unreachable service is exit 1 with the reason.
    const unreachable = await node([main, 'wallet', 'list', '--base-url', 'http://127.0.0.1:9'], { HOME: dir })
    assert.equal(unreachable.code, 1, unreachable.stdout + unreachable.stderr)
    assert.match(unreachable.stderr, /^error: fetch failed: /m)
    for (const run of [help, made, unreachable])
      assert.doesNotMatch(run.stderr, /tsx|ERR_MODULE_NOT_FOUND|ERR_UNKNOWN_FILE_EXTENSION/)
  })
})
