/**
 * The CLI's argument handling, in-process (runCli with its output captured): help for every
 * command, usage errors with exit 2, and the argument forms (attributes, predicates). No service:
 * nothing here reaches the network (an unreachable --base-url would show up as exit 1).
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Readable } from 'node:stream'
import { LocalError } from '../src/args/command.js'
import { attributes, predicate } from '../src/args/values.js'
import { claimPath, decide, shortValue } from '../src/output/ask.js'
import { runCli } from '../src/cli.js'
import { COMMANDS } from '../src/commands/index.js'
import { Output } from '../src/output/output.js'

async function run(argv: string[], env: Record<string, string> = {}) {
  let stdout = ''
  let stderr = ''
  const code = await runCli(
    argv,
    { CPS_BASE_URL: 'http://127.0.0.1:9', ...env },
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), stderrIsTty: false },
  )
  return { code, stdout, stderr }
}

describe('cps arguments and help', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cps-usage-'))
  })
  after(() => rm(dir, { recursive: true, force: true }))

  it('cps --help lists every command; each command answers --help with its own usage and options', async () => {
    const top = await run(['--help'])
    assert.equal(top.code, 0)
    for (const command of COMMANDS) {
      assert.match(top.stdout, new RegExp(`^ {2}cps ${command.path.join(' ')}\\b`, 'm'))
      const help = await run([...command.path, '--help'])
      assert.equal(help.code, 0, help.stderr)
      assert.match(help.stdout, new RegExp(`^Usage: cps ${command.path.join(' ')}\\b`))
      for (const option of Object.keys(command.options ?? {}))
        assert.match(help.stdout, new RegExp(`--${option}\\b`), `${command.path.join(' ')} --${option}`)
      assert.match(help.stdout, /--base-url <url>/)
    }
  })

  it('a group without a command prints its commands and exits 2; with --help exits 0', async () => {
    const bare = await run(['issuer'])
    assert.equal(bare.code, 2)
    assert.match(bare.stderr, /cps issuer schema create/)
    assert.doesNotMatch(bare.stderr, /cps wallet list/)
    assert.equal((await run(['issuer', '--help'])).code, 0)
    assert.equal((await run([])).code, 2)
  })

  it('wrong usage exits 2 naming the problem and the usage, before any key or service is used', async () => {
    const cases: [string[], RegExp][] = [
      [['nonsense'], /unknown command: cps nonsense/],
      [['issuer', 'issue', '--colour', 'red'], /Unknown option '--colour'[\s\S]*Usage: cps issuer issue/],
      [['issuer', 'revoke'], /missing <credential-id>[\s\S]*Usage: cps issuer revoke <credential-id>/],
      [['issuer', 'revoke', 'a', 'b'], /unexpected argument: b/],
      [['issuer', 'issue', '--type', 'X'], /--schema is required/],
      [['keys', 'new', '--alg', 'RS256'], /--alg must be EdDSA or ES256/],
      [['keys', 'list', '--base-url', 'ftp://x'], /--base-url must be an http\(s\) URL/],
      [['verifier', 'request', 'create', '--type', 'T', '--purpose', 'P'], /at least one --credential is required/],
      [
        ['wallet', 'consents', 'grant', '--verifier', 'did:key:z', '--purpose', 'p', '--policy', 'forever'],
        /--policy must be one of/,
      ],
    ]
    for (const [argv, expected] of cases) {
      const result = await run(argv, { CPS_KEY_FILE: path.join(dir, 'none', 'keys.json') })
      assert.equal(result.code, 2, `${argv.join(' ')}: ${result.stderr}`)
      assert.match(result.stderr, expected)
    }
  })

  it('--json errors are one JSON document on stdout', async () => {
    const result = await run(['issuer', 'revoke', '--json'])
    assert.equal(result.code, 2)
    assert.deepEqual(JSON.parse(result.stdout), { success: false, code: 'usage', message: 'missing <credential-id>' })
  })

  it('an unreachable service exits 1 with the reason', async () => {
    const keyFile = path.join(dir, 'reach', 'keys.json')
    assert.equal((await run(['keys', 'new'], { CPS_KEY_FILE: keyFile })).code, 0)
    const result = await run(['login'], { CPS_KEY_FILE: keyFile })
    assert.equal(result.code, 1)
    assert.match(result.stderr, /^error: .*(ECONNREFUSED|fetch failed)/m)
  })

  it('keys new: names, the first default, a 0600 file in a 0700 directory; duplicates refused', async () => {
    const keyFile = path.join(dir, 'keys', 'keys.json')
    const env = { CPS_KEY_FILE: keyFile }
    assert.equal((await run(['keys', 'new', '--name', 'a'], env)).code, 0)
    assert.equal((await run(['keys', 'new', '--name', 'b', '--alg', 'ES256'], env)).code, 0)
    assert.equal((await stat(keyFile)).mode & 0o777, 0o600)
    assert.equal((await stat(path.dirname(keyFile))).mode & 0o777, 0o700)
    const listed = JSON.parse((await run(['keys', 'list', '--json'], env)).stdout)
    assert.deepEqual(
      listed.keys.map((k: { name: string; alg: string; default: boolean }) => [k.name, k.alg, k.default]),
      [
        ['a', 'EdDSA', true],
        ['b', 'ES256', false],
      ],
    )
    assert.match(listed.keys[1].did, /^did:key:zDn/)
    const again = await run(['keys', 'new', '--name', 'a'], env)
    assert.equal(again.code, 2)
    assert.match(again.stderr, /a key named "a" is already/)
    assert.equal((await run(['keys', 'use', 'b'], env)).code, 0)
    assert.equal(JSON.parse((await run(['keys', 'show', '--json'], env)).stdout).alg, 'ES256')
    assert.equal(JSON.parse((await run(['keys', 'show', '--json', '--key', 'a'], env)).stdout).alg, 'EdDSA')
    // Global options may also come before the command's words.
    const before = await run(['--key-file', keyFile, '--json', '--key=a', 'keys', 'show'])
    assert.equal(before.code, 0, before.stderr)
    assert.equal(JSON.parse(before.stdout).alg, 'EdDSA')
  })

  it('a key passed in (--private-jwk / CPS_PRIVATE_JWK) acts without a key file', async () => {
    const keyFile = path.join(dir, 'pass', 'keys.json')
    await run(['keys', 'new'], { CPS_KEY_FILE: keyFile })
    const stored = JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(keyFile, 'utf8')))
    const jwk = JSON.stringify(stored.keys[0].private_jwk)
    const shown = await run(['keys', 'show', '--json'], {
      CPS_PRIVATE_JWK: jwk,
      CPS_KEY_FILE: path.join(dir, 'absent', 'keys.json'),
    })
    assert.equal(shown.code, 0, shown.stderr)
    assert.equal(JSON.parse(shown.stdout).did, stored.keys[0].did)
    const jwkFile = path.join(dir, 'key.jwk')
    await writeFile(jwkFile, jwk)
    assert.equal(
      JSON.parse((await run(['keys', 'show', '--json', '--private-jwk', `@${jwkFile}`])).stdout).did,
      stored.keys[0].did,
    )
    const bad = await run(['keys', 'show', '--private-jwk', '{"kty":"oct"}'])
    assert.equal(bad.code, 2)
  })

  it('attributes: k=v typed by the schema, k:=json, a file under the flags', async () => {
    const file = path.join(dir, 'attrs.json')
    await writeFile(file, JSON.stringify({ given_name: 'Ada', gpa: 1 }))
    const values = { 'attributes-file': file, attr: ['gpa=3.8', 'zip=01234', 'tags:=["a","b"]', 'note=a=b'] }
    assert.deepEqual(attributes(values, { gpa: 'number', zip: 'string' }), {
      given_name: 'Ada',
      gpa: 3.8,
      zip: '01234',
      tags: ['a', 'b'],
      note: 'a=b',
    })
    assert.throws(() => attributes({ attr: ['novalue'] }), /name=value or name:=json/)
  })

  it('progress: a spinner with its label on a terminal, cleared at the end; nothing when piped or under --json', async () => {
    const drawn = async (tty: boolean, json: boolean) => {
      let stderr = ''
      const out = new Output({ stdout: () => {}, stderr: (t) => (stderr += t), stderrIsTty: tty }, json)
      const answer = await out.progress('signing in', async (update) => {
        update('still signing in')
        await new Promise((resolve) => setTimeout(resolve, 200))
        return 42
      })
      assert.equal(answer, 42)
      return stderr
    }
    const terminal = await drawn(true, false)
    assert.match(terminal, /⠋ signing in/)
    assert.match(terminal, /[⠙⠹⠸⠼] still signing in/)
    assert.ok(terminal.endsWith('\r\x1b[2K'))
    assert.equal(await drawn(false, false), '')
    assert.equal(await drawn(true, true), '')
  })

  it("the holder's question: y/yes accepts, anything else or no input declines, --yes does not ask, no terminal refuses", async () => {
    const ask = async (input: string | undefined, options: { yes?: boolean; interactive?: boolean } = {}) => {
      let stderr = ''
      const stdin = input === undefined ? undefined : Readable.from([input])
      const io = {
        stdout: () => {},
        stderr: (t: string) => (stderr += t),
        stderrIsTty: false,
        ...(stdin ? { stdin } : {}),
        interactive: options.interactive ?? true,
      }
      try {
        return {
          accepted: await decide(io, ['Credential offer from Town hall'], {
            yes: options.yes ?? false,
            what: 'taking an offer',
          }),
          stderr,
          stdin,
        }
      } catch (error) {
        return { error: error as Error, stderr, stdin }
      }
    }
    for (const yes of ['y\n', 'Y\n', 'yes\n', ' yes \n', 'y']) {
      const answer = await ask(yes)
      assert.equal(answer.accepted, true, JSON.stringify(yes))
      assert.equal(answer.stderr, 'Credential offer from Town hall\nAccept? [y/N] ')
    }
    for (const no of ['n\n', 'no\n', '\n', '', 'yep\n', 'n\ny\n'])
      assert.equal((await ask(no)).accepted, false, JSON.stringify(no))
    // --yes: the preview is shown, nothing is read.
    const given = await ask('n\n', { yes: true })
    assert.equal(given.accepted, true)
    assert.equal(given.stderr, 'Credential offer from Town hall\n')
    assert.equal(given.stdin!.readableEnded, false)
    // No terminal (or no input at all): a LocalError (exit 2) that names --yes, before any question.
    for (const refused of [await ask('y\n', { interactive: false }), await ask(undefined)]) {
      assert.ok(refused.error instanceof LocalError)
      assert.match(
        refused.error.message,
        /^nothing was sent: taking an offer needs the holder's answer, and there is no terminal to ask on\. .*--yes/,
      )
      assert.doesNotMatch(refused.stderr, /Accept\?/)
    }
  })

  it("the preview cannot rewrite the terminal: control characters and line breaks of the other side's words are shown as \ufffd", async () => {
    let stderr = ''
    const io = { stdout: () => {}, stderr: (t: string) => (stderr += t), stderrIsTty: false, interactive: true }
    // An OSC title, a cursor-up-and-erase and a forged line in a verifier's name; a tab is kept.
    const shown = [
      '  verifier:    Shop\u001b]0;x\u0007\u001b[1A\u001b[2K',
      '  purpose:     Buy\n  identity:    verified\tok\u009b',
    ]
    await decide(io, shown, { yes: true, what: 'answering a presentation request' })
    assert.equal(
      stderr,
      '  verifier:    Shop\ufffd]0;x\ufffd\ufffd[1A\ufffd[2K\n  purpose:     Buy\ufffd  identity:    verified\tok\ufffd\n',
    )
  })

  it('claim paths and values as a preview shows them', () => {
    assert.equal(claimPath(['credentialSubject', 'address', 'city']), 'credentialSubject.address.city')
    assert.equal(claimPath(['degrees', null, 'type']), 'degrees[*].type')
    assert.equal(claimPath(['nationalities', 0]), 'nationalities[0]')
    assert.equal(shortValue('Erika'), 'Erika')
    assert.equal(shortValue({ a: 1 }), '{"a":1}')
    assert.equal(shortValue('x'.repeat(100)), `${'x'.repeat(77)}…`)
  })

  it('predicates: attribute, operator, value', () => {
    assert.deepEqual(predicate('gpa>=3'), { attribute: 'gpa', operator: '>=', value: 3 })
    assert.deepEqual(predicate(' age < 18.5 '), { attribute: 'age', operator: '<', value: 18.5 })
    assert.deepEqual(predicate('birth_date<=2008-01-01'), {
      attribute: 'birth_date',
      operator: '<=',
      value: '2008-01-01',
    })
    assert.throws(() => predicate('gpa=3'), /--predicate takes/)
    assert.throws(() => predicate('gpa=>3'), /--predicate takes/)
  })
})
