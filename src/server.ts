import { buildApp } from './app.js'
import { ConfigError, loadConfig } from './config.js'
import { DataDirInUseError, InstanceSettingsMismatchError } from './errors.js'
import { openRuntimeDeps } from './runtime-deps.js'
import { runtimeProblem } from './runtime-version.js'

/** The only file that listens. SIGTERM/SIGINT: stop accepting, drain in-flight requests, close the DB. */
async function main(): Promise<void> {
  const runtime = runtimeProblem()
  if (runtime) {
    console.error(runtime)
    process.exit(2)
  }
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
  let deps
  try {
    deps = await openRuntimeDeps(config)
  } catch (error) {
    // The operator's to resolve, like a bad configuration (exit 2), not a crash (exit 1).
    if (error instanceof DataDirInUseError) {
      console.error(`Refusing to start: ${error.message}`)
      process.exit(2)
    }
    throw error
  }
  let app
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
  await app.listen({ port: config.port, host: config.host })
  app.log.info({ database: deps.database.engine, content: deps.content.kind, docs: `${config.publicBaseUrl}/api/docs` }, 'service ready')
}

main().catch((error) => {
  console.error('start-up failed:', error instanceof Error ? error.message : error)
  process.exit(1)
})
