import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { HealthService } from './health.service.js'

const Check = Type.Object({
  status: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Literal('not_configured')]),
  latency_ms: Type.Optional(Type.Number()),
  detail: Type.Optional(Type.String()),
})

const HealthResponse = Type.Object({
  success: Type.Boolean(),
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]),
  version: Type.String(),
  uptime_seconds: Type.Number(),
  checks: Type.Record(Type.String(), Check),
})

export const healthRoutes: FastifyPluginAsyncTypebox<{ health: HealthService }> = async (app, { health }) => {
  const tags = ['Health']
  // Health and readiness answer the same report; readiness exists under the name orchestrators expect.
  const reportHandler = async (_request: FastifyRequest, reply: FastifyReply) => {
    const report = await health.report()
    return reply.status(report.status === 'down' ? 503 : 200).send({ success: report.status !== 'down', ...report })
  }
  app.get(
    '',
    {
      schema: {
        tags,
        summary: 'Service, database and dependency state; 503 when the database is down',
        response: { 200: HealthResponse, 503: HealthResponse },
      },
    },
    reportHandler,
  )

  app.get(
    '/live',
    {
      schema: {
        tags,
        summary: 'Liveness: the process answers',
        response: { 200: Type.Object({ success: Type.Boolean(), status: Type.String() }) },
      },
    },
    async () => ({ success: true, status: 'ok' }),
  )

  app.get(
    '/ready',
    {
      schema: {
        tags,
        summary: 'Readiness: 503 while the database is unreachable',
        response: { 200: HealthResponse, 503: HealthResponse },
      },
    },
    reportHandler,
  )
}
