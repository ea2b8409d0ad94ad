import { randomBytes } from 'node:crypto'
import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp, type AppDeps } from '../../src/app.js'
import { createContentStore } from '../../src/adapters/content-store/index.js'
import { createGuardedFetch } from '../../src/adapters/http-out/guarded-fetch.js'
import type { Clock } from '../../src/adapters/clock.js'
import type { LogSink } from '../../src/plugins/log-options.js'
import { loadConfig, type Config } from '../../src/config.js'
import { createTestDatabase } from './test-database.js'

export const ADMIN_KEY = 'test-admin-key-0123456789'

export interface TestApp {
  app: FastifyInstance
  config: Config
  deps: AppDeps
  close(): Promise<void>
}

/** The real app on a fresh real database; env overrides and adapters can be swapped per test. */
export async function createTestApp(
  options: {
    env?: Record<string, string>
    clock?: Clock
    httpGet?: AppDeps['httpGet']
    /** Outgoing protocol requests of the hosted wallet (OpenID4VCI/VP); default the guarded request. */
    httpRequest?: AppDeps['httpRequest']
    dns?: AppDeps['dns']
    /** A chain client (e.g. an in-memory fake); default none unless BLOCKCHAIN_RPC_URL is set. */
    chain?: AppDeps['chain']
    /** Receives the service's log lines (default: logging off). */
    logSink?: LogSink
    /** Extra routes for tests of cross-cutting plugins (registered before ready). */
    extraRoutes?: (app: FastifyInstance) => void
    /** Wraps the database handle the app is given (to watch what reaches it). */
    wrapDatabase?: (database: AppDeps['database']) => AppDeps['database']
  } = {},
): Promise<TestApp> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-test-'))
  const config = loadConfig({
    DATA_DIR: dataDir,
    PUBLIC_BASE_URL: 'http://service.test',
    ADMIN_API_KEY: ADMIN_KEY,
    RATE_LIMIT_AUTH_PER_MINUTE: '100000',
    RATE_LIMIT_RESOLVE_PER_MINUTE: '100000',
    LOG_LEVEL: 'silent',
    ...options.env,
  })
  const fresh = await createTestDatabase()
  const database = options.wrapDatabase ? options.wrapDatabase(fresh) : fresh
  const deps: AppDeps = {
    database,
    content: createContentStore({ db: database.db, maxBytes: config.contentMaxBytes }),
    httpGet:
      options.httpGet ??
      createGuardedFetch({
        allowPrivate: config.outboundAllowPrivate,
        timeoutMs: config.outboundTimeoutMs,
        maxBytes: 256 * 1024,
        maxRedirects: 3,
      }),
    dns: options.dns,
    httpRequest: options.httpRequest,
    chain: options.chain,
    masterKey: new Uint8Array(randomBytes(32)),
    clock: options.clock,
    logger: options.logSink ? { sink: options.logSink } : false,
  }
  let app: FastifyInstance | undefined
  try {
    app = await buildApp(config, deps)
    options.extraRoutes?.(app)
    await app.ready()
  } catch (error) {
    // Once built, the app owns the database (its onClose hook closes it); before, it is ours.
    if (app) await app.close().catch(() => undefined)
    else await database.close().catch(() => undefined)
    throw error
  }
  const built = app
  return { app: built, config, deps, close: () => built.close() }
}

/** A clock tests can move. */
export class ManualClock implements Clock {
  constructor(private current = new Date('2026-11-22T12:00:00Z')) {}
  now(): Date {
    return new Date(this.current)
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms)
  }
}
