import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import { createServer, type AddressInfo } from 'node:net'
import path from 'node:path'
import { makeLocalTls } from '../../../../scripts/lib/local-ca.js'

const root = path.resolve(import.meta.dirname, '../../../..')
/** What `npx cps` runs: the package's bin (it registers tsx and loads the TypeScript source). */
const BIN = path.join(root, 'packages/cli/bin/cps.js')
const DRIVER = path.join(root, 'packages/cli/test/helpers/cli-driver.ts')

export interface CpsRun {
  code: number | null
  stdout: string
  stderr: string
}

/** One `cps` invocation as its own process, as a user runs it; `env` over a minimal environment. */
export function cps(args: string[], env: Record<string, string>, stdin?: string): Promise<CpsRun> {
  return run([BIN, ...args], env, stdin)
}

/** `cps` with a person at the terminal who types `answer` (helpers/cli-driver.ts: the CLI's input stream and terminal injected). */
export function cpsAnswering(answer: string, args: string[], env: Record<string, string>): Promise<CpsRun> {
  return run(['--import', 'tsx', DRIVER, ...args], { ...env, CPS_TEST_INTERACTIVE: '1' }, answer)
}

function run(nodeArgs: string[], env: Record<string, string>, stdin?: string): Promise<CpsRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs, {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(stdin ?? '')
  })
}

/** A free loopback port (the server must know its port before it listens: PUBLIC_BASE_URL names it). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

export interface HttpsServer {
  child: ChildProcess
  baseUrl: string
  /** The throw-away CA to trust (NODE_EXTRA_CA_CERTS) to reach it. */
  caFile: string
  output: () => string
  stop: () => Promise<void>
}

/**
 * `src/server.ts` as its own process with TLS from a throw-away CA (scripts/lib/local-ca.ts): the
 * OpenID4VC routes are served on an https PUBLIC_BASE_URL only. The hosted wallet reaches this
 * same instance on loopback (OUTBOUND_ALLOW_PRIVATE, the CA trusted).
 */
export async function startHttpsServer(dir: string): Promise<HttpsServer> {
  const tlsDir = path.join(dir, 'tls')
  await mkdir(tlsDir, { recursive: true })
  const tls = makeLocalTls(tlsDir)
  const port = await freePort()
  const baseUrl = `https://127.0.0.1:${port}`
  const server = await startServer(baseUrl, port, {
    PUBLIC_BASE_URL: baseUrl,
    DATA_DIR: path.join(dir, 'data'),
    TLS_CERT_FILE: tls.certFile,
    TLS_KEY_FILE: tls.keyFile,
    NODE_EXTRA_CA_CERTS: tls.caFile,
    OUTBOUND_ALLOW_PRIVATE: 'true',
  })
  return { ...server, caFile: tls.caFile }
}

/** `src/server.ts` on plain http (what `npm start` serves by default): no OpenID4VC routes. */
export async function startHttpServer(dir: string): Promise<Omit<HttpsServer, 'caFile'>> {
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  return startServer(baseUrl, port, { PUBLIC_BASE_URL: baseUrl, DATA_DIR: path.join(dir, 'data-http') })
}

async function startServer(
  baseUrl: string,
  port: number,
  env: Record<string, string>,
): Promise<Omit<HttpsServer, 'caFile'>> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), BBS_WORKERS: '1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
  // A server that does not come up is stopped before the error is thrown: nothing outlives the test.
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 180_000)
    const check = () => {
      if (out.includes(`Server listening at ${baseUrl}`)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on('data', check)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code}:\n${out}`))
    })
  }).catch(async (error: unknown) => {
    await stop()
    throw error
  })
  return { child, baseUrl, output: () => out, stop }
}
