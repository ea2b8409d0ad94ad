import type { ContentStore } from '../../adapters/content-store/content-store.js'

type CheckStatus = 'up' | 'down' | 'not_configured'
interface Check {
  status: CheckStatus
  latency_ms?: number
  detail?: string
}

export interface HealthReport {
  status: 'ok' | 'degraded' | 'down'
  version: string
  uptime_seconds: number
  checks: Record<string, Check>
}

const PROBE_TIMEOUT_MS = 2000

/** The database is required (down => 503); other dependencies only degrade the service. */
export class HealthService {
  private readonly startedAt = Date.now()

  constructor(
    private readonly deps: {
      version: string
      pingDatabase: () => Promise<void>
      content: ContentStore
      blockchainConfigured: boolean
    },
  ) {}

  async report(): Promise<HealthReport> {
    const [database, content] = await Promise.all([
      probe(this.deps.pingDatabase),
      probe(() => this.deps.content.check()),
    ])
    const checks: Record<string, Check> = {
      database,
      content_store: { ...content, detail: this.deps.content.kind },
      blockchain: { status: this.deps.blockchainConfigured ? 'up' : 'not_configured' },
    }
    const status = database.status === 'down' ? 'down' : content.status === 'down' ? 'degraded' : 'ok'
    return {
      status,
      version: this.deps.version,
      uptime_seconds: Math.round((Date.now() - this.startedAt) / 1000),
      checks,
    }
  }
}

async function probe(fn: () => Promise<void>): Promise<Check> {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), PROBE_TIMEOUT_MS)
      }),
    ])
    return { status: 'up', latency_ms: Math.round((performance.now() - started) * 100) / 100 }
  } catch (error) {
    // The reason is for operators (logs); the public body only says "down".
    return {
      status: 'down',
      detail: error instanceof Error && error.message === 'timed out' ? 'timed out' : 'unreachable',
    }
  } finally {
    clearTimeout(timer)
  }
}
