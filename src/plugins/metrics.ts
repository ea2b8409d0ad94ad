import { constants as perfConstants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks'
import v8 from 'node:v8'
import type {} from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

/**
 * Prometheus text at /metrics: request durations by route pattern (never the raw URL, which
 * holds DIDs and ids) and the process defaults. One registry per app so tests stay isolated.
 */
async function metricsPlugin(app: FastifyInstance): Promise<void> {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  // What is alive after a full collection: the heap-used gauge saw-tooths between collections
  // (widely on PGlite), so only this series shows a leak as a trend (bench:load --soak).
  const afterMajorGc = new Gauge({
    name: 'nodejs_heap_used_after_major_gc_bytes',
    help: 'V8 heap used right after the latest major (mark-compact) garbage collection',
    registers: [registry],
  })
  const gcObserver = new PerformanceObserver((list) => {
    const major = list
      .getEntries()
      .some(
        (entry: PerformanceEntry) =>
          (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ===
          perfConstants.NODE_PERFORMANCE_GC_MAJOR,
      )
    if (major) afterMajorGc.set(v8.getHeapStatistics().used_heap_size)
  })
  gcObserver.observe({ entryTypes: ['gc'] })
  app.addHook('onClose', async () => gcObserver.disconnect())
  app.addHook('onResponse', async (request, reply) => {
    duration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    )
  })
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  )
}

export default fp(metricsPlugin, { name: 'metrics' })
