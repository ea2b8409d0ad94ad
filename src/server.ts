import { hostname } from 'node:os'
import { buildApp } from './app.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { DataDirInUseError, InstanceSettingsMismatchError } from './errors.js'
import { openRuntimeDeps } from './runtime-deps.js'

/** pino's numeric levels: the lines below are written before the app's logger exists. */
const LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
}

/**
 * One start-up line, shaped like the app's own log lines (pino JSON) so a log collector reads
 * both alike. Phases and durations only: never the configuration's values (DATABASE_URL holds a
 * password, MASTER_KEY is the key).
 */
function startupLogger(config: Config): (msg: string, fields?: Record<string, unknown>) => void {
  const enabled = (LEVELS[config.logLevel] ?? 30) <= 30
  return (msg, fields = {}) => {
    if (!enabled) return
    process.stdout.write(
      `${JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, hostname: hostname(), ...fields, msg })}\n`,
    )
  }
}

const ms = (value: number) => Math.round(value)

/** The only file that listens (src/main.ts checks the runtime, then imports it). SIGTERM/SIGINT: stop accepting, drain in-flight requests, close the DB. */
async function main(): Promise<void> {
  // The modules are loaded by the time this runs: the time since the process began is theirs.
  const loaded = performance.now()
  let config
  try {
    config = loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message)
      process.exit(2)
    }
    throw error
  }
  const log = startupLogger(config)
  log('start-up: modules loaded', { phase: 'modules', ms: ms(loaded) })
  log('start-up: configuration read', { phase: 'config', ms: ms(performance.now() - loaded) })
  let deps
  try {
    deps = await openRuntimeDeps(config, (phase, took, fields) =>
      log(`start-up: ${phase}`, { phase, ms: ms(took), ...fields }),
    )
  } catch (error) {
    // The operator's to resolve, like a bad configuration (exit 2), not a crash (exit 1).
    if (error instanceof DataDirInUseError) {
      console.error(`Refusing to start: ${error.message}`)
      process.exit(2)
    }
    throw error
  }
  let app
  let started = performance.now()
  try {
    app = await buildApp(config, deps)
  } catch (error) {
    if (error instanceof InstanceSettingsMismatchError) {
      console.error(`Refusing to start: ${error.message}`)
      await deps.database.close().catch(() => undefined)
      process.exit(2)
    }
    throw error
  }
  app.log.info({ phase: 'app', ms: ms(performance.now() - started) }, 'start-up: app built')
  let closing = false
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down: draining in-flight requests')
    const timer = setTimeout(() => {
      app.log.error('drain timed out; exiting')
      process.exit(1)
    }, 15_000)
    timer.unref()
    try {
      await app.close()
      process.exit(0)
    } catch (err) {
      app.log.error({ err }, 'shutdown failed')
      process.exit(1)
    }
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
  started = performance.now()
  await app.listen({ port: config.port, host: config.host })
  app.log.info({ phase: 'listen', ms: ms(performance.now() - started) }, 'start-up: listening')
  const base = publicBase(config, app.server.address())
  const urls = { api: `${base}/api`, docs: `${base}/api/docs`, console: `${base}/app` }
  app.log.info(
    { database: deps.database.engine, content: deps.content.kind, ms: ms(performance.now()), ...urls },
    `service ready in ${(performance.now() / 1000).toFixed(1)} s: API ${urls.api}, docs ${urls.docs}, console ${urls.console}`,
  )
}

/** PUBLIC_BASE_URL, or (unset, PORT=0) the address the server was given. */
function publicBase(config: Config, address: ReturnType<import('node:net').Server['address']>): string {
  if (config.port !== 0 || address === null || typeof address === 'string') return config.publicBaseUrl
  return config.publicBaseUrl.replace(/:0$/, `:${address.port}`)
}

main().catch((error) => {
  console.error('start-up failed:', error instanceof Error ? error.message : error)
  process.exit(1)
})
