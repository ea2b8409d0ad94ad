/**
 * `npm run conformance`: the six W3C / CCG Verifiable Credentials suites against this service
 * (issue 23). Starts the service over HTTPS on a free port with a fresh data directory and a
 * throw-away local CA (trusted by the suites through NODE_EXTRA_CA_CERTS), provisions one issuer
 * profile that signs as service-generated did:keys, with a VC API client and its bearer token,
 * then runs each suite through ../shared/conformance/run-w3c.sh, passing its lines through.
 * Exits non-zero when any suite fails. `npm run conformance -- vcdm2 di-eddsa` runs only those.
 */
import { spawn, spawnSync } from 'node:child_process'
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import https from 'node:https'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { base58btc } from 'multiformats/bases/base58'
import { SKIPPED_TESTS } from './lib/conformance-skips.js'
import { makeLocalTls } from './lib/local-ca.js'

const root = path.resolve(import.meta.dirname, '..')
const kit = path.resolve(root, '../shared/conformance/run-w3c.sh')
const ALL = ['vcdm2', 'status-list', 'di-eddsa', 'di-bbs', 'vc-api-issuer', 'vc-api-verifier'] as const
type Suite = (typeof ALL)[number]

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'))
  const suites = wanted.length ? ALL.filter((s) => wanted.includes(s)) : [...ALL]
  const work = await mkdtemp(path.join(os.tmpdir(), 'conformance-'))
  const tls = makeLocalTls(work)
  const ca = await readFile(tls.caFile)
  const port = await freePort()
  const base = `https://127.0.0.1:${port}`
  const server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/server.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(work, 'data'),
      PUBLIC_BASE_URL: base,
      TLS_CERT_FILE: tls.certFile,
      TLS_KEY_FILE: tls.keyFile,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_AUTH_PER_MINUTE: '100000',
      MASTER_KEY: randomBytes(32).toString('hex'),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const stop = async () => {
    if (server.exitCode === null) server.kill('SIGTERM')
    await rm(work, { recursive: true, force: true })
  }
  process.on('exit', () => server.exitCode === null && server.kill('SIGKILL'))
  let failed = 0
  try {
    const call = client(base, ca)
    await waitHealthy(call, server)
    const env = await provision(call, base)
    for (const suite of suites) {
      const code = await runSuite(suite, { ...env, NODE_EXTRA_CA_CERTS: tls.caFile })
      if (code !== 0) failed++
    }
  } finally {
    await stop()
  }
  console.log(
    failed
      ? `conformance: ${failed} of ${suites.length} suites failed`
      : `conformance: all ${suites.length} suites passed`,
  )
  process.exit(failed ? 1 : 0)
}

// The service's answers, read only at the fields provisioning names (a failed read fails provisioning).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of the service's own documented answers
type Reply = Record<string, any>
type Call = (
  method: string,
  url: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; body: Reply }>

/** The environment of run-w3c.sh (../shared/conformance/README.md) for this service's issuer instance. */
async function provision(call: Call, base: string): Promise<Record<string, string>> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')
  const did = `did:key:${base58btc.encode(Uint8Array.from([0xed, 0x01, ...raw]))}`
  const { body: c } = await expect(call('POST', '/api/auth/challenge', { did }), 200)
  const { body: v } = await expect(
    call('POST', '/api/auth/verify-challenge', {
      did,
      challenge: c.challenge,
      signature: sign(null, Buffer.from(c.challenge, 'utf8'), privateKey).toString('base64'),
    }),
    200,
  )
  const auth = { authorization: `Bearer ${v.token}` }
  // did:key signing: the suites resolve did:key only, offline.
  await expect(call('POST', '/api/issuer', { name: 'W3C conformance issuer', signing_did_method: 'key' }, auth), 201)
  const { body: signing } = await expect(
    call('GET', `/api/issuer/${encodeURIComponent(did)}/signing`, undefined, auth),
    200,
  )
  const didOf = (keyType: string) =>
    (signing.signing_dids as Array<{ did: string; key_type: string | null }>).find((d) => d.key_type === keyType)?.did
  const clientBody = { name: 'W3C suites', scopes: ['issue', 'verify'] }
  const { body: created } = await expect(
    call('POST', `/api/issuer/${encodeURIComponent(did)}/vc-api/clients`, clientBody, auth),
    201,
  )
  // The suites issue and verify; none updates status, so their client and token hold no more (docs/vc-api.md "Scopes").
  const form = new URLSearchParams({ grant_type: 'client_credentials', scope: 'issue verify' }).toString()
  const basic = Buffer.from(`${created.client.client_id}:${created.client.client_secret}`).toString('base64')
  const { body: token } = await expect(
    call('POST', '/oauth2/token', form, {
      authorization: `Basic ${basic}`,
      'content-type': 'application/x-www-form-urlencoded',
    }),
    200,
  )
  const instance = new URL((created.client.endpoints as { status: string }).status).pathname.replace(
    /credentials\/status$/,
    '',
  )
  const issue = (format: string) => `${instance}${format}/credentials/issue`
  return {
    BASE: base,
    AUTH_HEADER: `Bearer ${token.access_token}`,
    IMPL_NAME: 'credential-service',
    ISSUER_ID: didOf('Ed25519')!,
    ...(didOf('BBS-BLS12-381-SHA-256') ? { ISSUER_ID_BBS_2023: didOf('BBS-BLS12-381-SHA-256')! } : {}),
    ISSUE_PATH: issue('eddsa-rdfc-2022'),
    ISSUE_PATH_EDDSA_JCS_2022: issue('eddsa-jcs-2022'),
    ISSUE_PATH_BBS_2023: issue('bbs-2023'),
    ISSUE_OPTIONS_BITSTRINGSTATUSLIST: JSON.stringify({
      credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
    }),
    VERIFY_PATH: '/vc-api/credentials/verify',
    VP_VERIFY_PATH: '/vc-api/presentations/verify',
  }
}

/**
 * The Node.js the suites run on. They were written for Node 18-20: on Node 21 and later,
 * structuredClone refuses the URL objects in @digitalbazaar/credentials-context's `named` map,
 * which the EdDSA suite clones as it loads. So a Node 18-20 on the machine is put first in PATH
 * for the suites only (W3C_NODE names one; Debian's /usr/bin/node otherwise); the service itself
 * runs on the project's Node 24.
 */
function suiteNodePath(): string {
  for (const candidate of [process.env.W3C_NODE, '/usr/bin/node', '/usr/local/bin/node']) {
    if (!candidate || !existsSync(candidate)) continue
    const major = Number(
      spawnSync(candidate, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout.trim(),
    )
    if (major >= 18 && major <= 20) return `${path.dirname(candidate)}${path.delimiter}${process.env.PATH}`
  }
  console.warn('conformance: no Node.js 18-20 found (set W3C_NODE): the EdDSA suite cannot load on this Node')
  return process.env.PATH ?? ''
}

function runSuite(suite: Suite, env: Record<string, string>): Promise<number> {
  const skipped = SKIPPED_TESTS.filter((t) => t.suite === suite)
  const args: string[] = [suite]
  if (skipped.length) {
    for (const t of skipped)
      console.log(
        `conformance: skipping in ${suite}${t.kind === 'group' ? ' every test of' : ''}: "${t.title}" (${t.reason})`,
      )
    args.push(
      '--grep',
      skipped.map((t) => (t.kind === 'group' ? `^${escapeRegExp(t.title)} ` : `^${escapeRegExp(t.title)}$`)).join('|'),
      '--invert',
    )
  }
  if (process.env.KIT_REPORTER) env.KIT_REPORTER = process.env.KIT_REPORTER
  return new Promise((resolve) => {
    const child = spawn('bash', [kit, ...args], {
      cwd: root,
      env: { ...process.env, ...env, PATH: suiteNodePath() },
      stdio: 'inherit',
    })
    child.once('exit', (code) => resolve(code ?? 1))
  })
}

function client(base: string, ca: Buffer): Call {
  return (method, url, body, headers = {}) =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
      const req = https.request(
        `${base}${url}`,
        {
          method,
          ca,
          headers: {
            accept: 'application/json',
            ...(text !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
        },
        (res) => {
          let data = ''
          res.setEncoding('utf8')
          res.on('data', (chunk) => (data += chunk))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data ? (JSON.parse(data) as Reply) : {} }))
        },
      )
      req.on('error', reject)
      req.end(text)
    })
}

async function expect(reply: Promise<{ status: number; body: Reply }>, status: number) {
  const res = await reply
  if (res.status !== status)
    throw new Error(`provisioning: expected ${status}, got ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`)
  return res
}

async function waitHealthy(call: Call, server: ReturnType<typeof spawn>): Promise<void> {
  const deadline = Date.now() + 120_000
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the service exited with ${server.exitCode} during start-up`)
    const ok = await call('GET', '/api/health').then(
      (r) => r.status === 200,
      () => false,
    )
    if (ok) return
    if (Date.now() > deadline) throw new Error('the service was not healthy within 120 s')
    await new Promise((r) => setTimeout(r, 300))
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

main().catch((error) => {
  console.error('conformance:', error instanceof Error ? error.message : error)
  process.exit(2)
})
