import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { sleep, trackChild } from './cleanup.js'
import { getStatus } from './http-client.js'
import type { ServerMode } from './options.js'

export const projectRoot = path.resolve(import.meta.dirname, '../..')

export interface ServerProcess {
  baseUrl: string
  pid: number
  port: number
  /** The server's DATA_DIR (PGlite's files are under pglite/). */
  dataDir: string
  /** SIGTERM (graceful drain, flushes --cpu-prof), SIGKILL after 15 s; removes the data dir. */
  stop(): Promise<void>
}

/** How to launch the server: node arguments for its entry point, and what to remove afterwards. */
export interface ServerBuild {
  entry: string[]
  dispose(): Promise<void>
}

export interface ServerOptions {
  build: ServerBuild
  databaseUrl?: string
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[]
  /** Extra environment (e.g. BLOCKCHAIN_* for the anchoring part). */
  env?: Record<string, string>
  /** Serve https with this certificate (scripts/lib/local-ca.ts); PUBLIC_BASE_URL is then the https origin. */
  tls?: { certFile: string; keyFile: string; ca: string }
  startTimeoutMs?: number
  /** A DATA_DIR the caller owns and keeps (restarts on one PGlite database); by default a temporary one, removed on stop. */
  dataDir?: string
  /** Listen here (a restart keeps the address that PUBLIC_BASE_URL and issued credentials name); a free port by default. */
  port?: number
}

/**
 * 'tsx' runs the entry from source (src/main.ts), transpiled at start. 'build' runs it compiled
 * as `npm start` does: dist/main.js, built by scripts/build-server.ts when a source is newer
 * (the JSON-LD contexts tsc does not emit and the PGlite template come with it).
 */
export async function prepareServer(mode: ServerMode): Promise<ServerBuild> {
  if (mode === 'tsx')
    return { entry: ['--import', 'tsx', path.join(projectRoot, 'src/main.ts')], dispose: async () => undefined }
  const result = spawnSync(process.execPath, [path.join(projectRoot, 'scripts/build-server.ts'), '--if-stale'], {
    cwd: projectRoot,
    stdio: 'inherit',
    timeout: 600_000,
  })
  if (result.status !== 0) throw new Error('the service did not compile (scripts/build-server.ts)')
  const entry = path.join(projectRoot, 'dist/main.js')
  if (!existsSync(entry)) throw new Error('the build produced no dist/main.js')
  return { entry: [entry], dispose: async () => undefined }
}

export async function startServer(options: ServerOptions): Promise<ServerProcess> {
  const port = options.port ?? (await freePort())
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'bench-data-')))
  // A minimal environment: nothing from the caller's shell (DATABASE_URL, ADMIN_API_KEY...) leaks in.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // The config's maximum; high enough that the limiter never rejects benchmark traffic.
    RATE_LIMIT_AUTH_PER_MINUTE: '10000000',
    MASTER_KEY: randomBytes(32).toString('hex'),
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...(options.tls
      ? {
          TLS_CERT_FILE: options.tls.certFile,
          TLS_KEY_FILE: options.tls.keyFile,
          PUBLIC_BASE_URL: `https://127.0.0.1:${port}`,
        }
      : {}),
    ...options.env,
  }
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...options.build.entry], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const untrack = trackChild(child)
  let output = ''
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000)
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  const baseUrl = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const graceful = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)])
      if (!graceful) {
        child.kill('SIGKILL')
        await exited
      }
    }
    untrack()
    if (!options.dataDir) await rm(dataDir, { recursive: true, force: true })
  }

  try {
    const deadline = Date.now() + (options.startTimeoutMs ?? 90_000)
    while ((await getStatus(`${baseUrl}/api/health`, 2000, options.tls?.ca)) !== 200) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} during start-up:\n${output}`)
      if (Date.now() > deadline)
        throw new Error(`server not healthy after ${options.startTimeoutMs ?? 90_000} ms:\n${output}`)
      await sleep(200)
    }
  } catch (error) {
    await stop()
    throw error
  }
  if (output.trim()) console.warn(`server output during start-up:\n${output}`)
  return { baseUrl, pid: child.pid!, port, dataDir, stop }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** The code measured: commit, plus "+dirty" when src/ has uncommitted changes (read-only git). */
export function codeVersion(): string {
  const git = (...args: string[]) =>
    spawnSync('git', args, { cwd: projectRoot, encoding: 'utf8', timeout: 10_000 }).stdout?.trim() ?? ''
  const commit = git('rev-parse', '--short', 'HEAD') || 'unknown'
  return git('status', '--porcelain', '--', 'src') ? `${commit}+dirty` : commit
}
