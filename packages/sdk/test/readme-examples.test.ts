/**
 * The README's examples as a user runs them (issue 35: "the SDK's README examples run under plain
 * node"): each README code block is the file of the same name in examples/ (so they cannot drift
 * apart), and each example runs with plain `node` (no loader, no flags) from a project where the
 * SDK is the tarball `npm pack` makes, against the service on a real https port. The tarball
 * itself is checked too: what it holds, that plain node imports it, that TypeScript finds its types.
 */
import assert from 'node:assert/strict'
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { runExample, startExample, type ExampleProcess } from './support/example-process.js'
import { startHttpsService, type LiveService } from './support/live-service.js'
import { packSdk, run, type PackedSdk } from './support/packed-sdk.js'

const sdkDir = path.resolve(import.meta.dirname, '..')
const repo = path.resolve(sdkDir, '../..')
/** The test service's TLS certificate, trusted by the examples (test/helpers/https-front.ts). */
const CA = path.join(repo, 'test/fixtures/tls/localhost-cert.pem')

/** The README's ```js blocks, each named by its first line `// examples/<name>.mjs…`. */
async function readmeBlocks(): Promise<{ name: string; code: string }[]> {
  const readme = await readFile(path.join(sdkDir, 'README.md'), 'utf8')
  return [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => {
    const code = m[1]!
    const name = /^\/\/ examples\/([\w-]+\.mjs)/.exec(code)?.[1]
    assert.ok(name, `a README js block does not start with "// examples/<name>.mjs": ${code.slice(0, 80)}`)
    return { name, code }
  })
}

describe('the SDK README examples under plain node, from the packed package', () => {
  let packed: PackedSdk
  let svc: LiveService
  let env: Record<string, string>
  const started: ExampleProcess[] = []
  const example = (name: string) => path.join(packed.project, name)
  const start = (name: string, args: string[] = []) => {
    const p = startExample(example(name), args, { cwd: packed.project, env })
    started.push(p)
    return p
  }

  /** The stored status of the request an openid4vp:// URI names (its request_uri ends with the id). */
  const requestStatus = async (uri: string) => {
    const id = new URL(new URL(uri).searchParams.get('request_uri')!).pathname.split('/').at(-1)!
    const row = await svc.t.deps.database.db
      .selectFrom('presentation_requests')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    return row.status
  }

  before(async () => {
    packed = await packSdk()
    for (const name of await readdir(path.join(sdkDir, 'examples')))
      await copyFile(path.join(sdkDir, 'examples', name), example(name))
    svc = await startHttpsService()
    env = { SERVICE_URL: svc.baseUrl, NODE_EXTRA_CA_CERTS: CA }
  })
  after(async () => {
    for (const p of started) p.stop()
    await Promise.all(started.map((p) => p.exited))
    await svc?.close()
    await packed?.remove()
  })

  it('every README code block is its examples file, and every example is in the README', async () => {
    const blocks = await readmeBlocks()
    // Any other fence is a shell command: code in another language would be an example left untested.
    const readme = await readFile(path.join(sdkDir, 'README.md'), 'utf8')
    const fences = [...readme.matchAll(/^```(\w*)$/gm)].map((m) => m[1]).filter((_, i) => i % 2 === 0) // the opening ones
    assert.deepEqual(
      fences.filter((lang) => lang !== 'js' && lang !== 'bash'),
      [],
    )
    const files = (await readdir(path.join(sdkDir, 'examples'))).filter((f) => f.endsWith('.mjs')).sort()
    assert.deepEqual(blocks.map((b) => b.name).sort(), files)
    for (const { name, code } of blocks)
      assert.equal(
        code,
        await readFile(path.join(sdkDir, 'examples', name), 'utf8'),
        `README block ${name} differs from examples/${name}`,
      )
  })

  it('the tarball holds the built package: plain node imports it, TypeScript finds its types', async () => {
    for (const f of [
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/index.js.map',
      'dist/issuer/issuer-client.js',
      'dist/verifier/verifier-client.d.ts',
      'src/index.ts',
    ]) {
      assert.ok(packed.files.includes(f), `the tarball lacks ${f}`)
    }
    assert.ok(
      !packed.files.some((f) => f.startsWith('test/') || f.startsWith('scripts/') || f.startsWith('tsconfig')),
      packed.files.join(' '),
    )
    const manifest = JSON.parse(await readFile(path.join(packed.packageDir, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >
    assert.equal(manifest.private, undefined)

    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const sdk = await import('@credential-service/sdk'); console.log(Object.keys(sdk).sort().join(' '))",
      ],
      { cwd: packed.project },
    )
    assert.equal(imported.code, 0, imported.stderr)
    const names = imported.stdout.trim().split(' ')
    for (const name of [
      'createServiceClient',
      'signIn',
      'createIssuerClient',
      'createVerifierClient',
      'acceptOffer',
      'answerPresentationRequest',
      'generateHolderKey',
      'ServiceError',
    ])
      assert.ok(names.includes(name), `${name} not exported: ${names.join(' ')}`)
    // The resolved file is the packed dist, not a source of the repository.
    const resolved = await run(
      process.execPath,
      ['--input-type=module', '-e', "console.log(import.meta.resolve('@credential-service/sdk'))"],
      { cwd: packed.project },
    )
    assert.equal(resolved.stdout.trim(), `file://${path.join(packed.packageDir, 'dist/index.js')}`)

    // A TypeScript user (NodeNext resolution) gets the declarations: a wrong argument is a type error.
    await writeFile(
      path.join(packed.project, 'use.ts'),
      [
        "import { createVerifierClient, signIn, generateHolderKey, type RequestResult } from '@credential-service/sdk'",
        "const client = await signIn({ baseUrl: 'https://x.example', key: await generateHolderKey() })",
        "const result: RequestResult = await createVerifierClient(client).waitForResult('id', { intervalMs: 10 })",
        'const outcome: "answered" | "declined" | "expired" = result.outcome',
        '// @ts-expect-error the interval is a number',
        "await createVerifierClient(client).waitForResult('id', { intervalMs: 'soon' })",
        'export { outcome }',
      ].join('\n'),
    )
    const tsc = path.join(repo, 'node_modules/typescript/bin/tsc')
    const compilerOptions = {
      noEmit: true,
      strict: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2023',
      lib: ['es2023', 'dom'],
      types: [],
    }
    await writeFile(path.join(packed.project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['use.ts'] }))
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: packed.project })
    assert.equal(checked.code, 0, checked.stdout + checked.stderr)
  })

  it('sign-in.mjs: a key, a session, a typed call and a ServiceError', async () => {
    const { code, stdout, stderr } = await runExample(example('sign-in.mjs'), [], { cwd: packed.project, env })
    assert.equal(code, 0, stderr)
    const did = /^My DID: (did:key:z6Mk\w+)$/m.exec(stdout)?.[1]
    assert.ok(did, stdout)
    assert.match(stdout, new RegExp(`^Signed in as ${did}$`, 'm'))
    assert.match(stdout, /^The service answered 404 NOT_FOUND: /m)
  })

  it('issuer.mjs, verifier.mjs and holder.mjs: an offer accepted, a request answered, the presentation verified', async () => {
    const issuer = await runExample(example('issuer.mjs'), [], { cwd: packed.project, env })
    assert.equal(issuer.code, 0, issuer.stderr)
    const offerUri = /^Offer: (openid-credential-offer:\/\/\S+)$/m.exec(issuer.stdout)?.[1]
    const txCode = /^Transaction code: (\d+)$/m.exec(issuer.stdout)?.[1]
    assert.ok(offerUri && txCode, issuer.stdout)
    assert.match(issuer.stdout, /^Credential \S+ is revoked$/m)

    const verifier = start('verifier.mjs')
    const requestUri = (await verifier.waitFor(/^Request: (openid4vp:\/\/\S+)$/m))[1]!

    const holder = await runExample(example('holder.mjs'), [offerUri, txCode, requestUri], { cwd: packed.project, env })
    assert.equal(holder.code, 0, holder.stderr)
    assert.match(holder.stdout, /^Received: Degree$/m)
    assert.match(holder.stdout, /^The verifier accepted the presentation$/m)

    const ended = await verifier.exited
    assert.equal(ended.code, 0, ended.stderr)
    assert.match(ended.stdout, /^Answered: the presentation is verified$/m)
    assert.match(ended.stdout, /^Verified again: true$/m)
  })

  it('holder-preview.mjs: the holder sees issuer, verifier, purpose and claims before anything is sent, shares once and declines once (the verifier sees both)', async () => {
    /** An offer of issuer.mjs and a waiting verifier.mjs, for one run of the holder. */
    const setUp = async () => {
      const issuer = await runExample(example('issuer.mjs'), [], { cwd: packed.project, env })
      assert.equal(issuer.code, 0, issuer.stderr)
      const offerUri = /^Offer: (\S+)$/m.exec(issuer.stdout)![1]!
      const txCode = /^Transaction code: (\S+)$/m.exec(issuer.stdout)![1]!
      const verifier = start('verifier.mjs')
      const requestUri = (await verifier.waitFor(/^Request: (openid4vp:\/\/\S+)$/m))[1]!
      return { args: [offerUri, txCode, requestUri], verifier }
    }

    const first = await setUp()
    const sharing = start('holder-preview.mjs', first.args)
    await sharing.waitFor(/Accept it\? \[y\/N\] $/)
    // Shown before the offer is redeemed: the issuer's name and the credential's claims.
    assert.match((await sharing.waitFor(/^Example University offers .+$/m))[0], /given_name/)
    sharing.answer('y')
    await sharing.waitFor(/Share this\? \[y\/N\] $/)
    const shown = (
      await sharing.waitFor(
        /^Example Employer \(verified: .+\) asks, for "Check the degree of an applicant":\n((?: {2}.+\n)+)/m,
      )
    )[1]!
    assert.match(shown, /^ {2}given_name: "Erika"$/m)
    assert.match(shown, /^ {2}degree: "BSc Physics"$/m)
    // Nothing reached the verifier before the holder said yes: its request is still open.
    assert.equal(await requestStatus(first.args[2]!), 'pending')
    sharing.answer('y')
    const shared = await sharing.exited
    assert.equal(shared.code, 0, shared.stderr)
    // An answer follows its question on the same line (stdin is not echoed).
    assert.match(shared.stdout, /\] Received: Degree$/m)
    assert.match(shared.stdout, /\] The verifier accepted the presentation$/m)
    const accepted = await first.verifier.exited
    assert.match(accepted.stdout, /^Answered: the presentation is verified$/m)

    const second = await setUp()
    const declining = start('holder-preview.mjs', second.args)
    await declining.waitFor(/Accept it\? \[y\/N\] $/)
    declining.answer('y')
    await declining.waitFor(/Share this\? \[y\/N\] $/)
    declining.answer('n')
    const declined = await declining.exited
    assert.equal(declined.code, 0, declined.stderr)
    assert.match(declined.stdout, /\] Declined: the verifier is told so$/m)
    const refused = await second.verifier.exited
    assert.equal(refused.code, 0, refused.stderr)
    assert.match(refused.stdout, /^No presentation: declined \(.*I do not share my degree.*\)$/m)
  })
})
