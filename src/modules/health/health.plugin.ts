import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ModuleContext } from '../shared/module-context.js'
import { healthRoutes } from './health.routes.js'
import { HealthService } from './health.service.js'

export interface HealthPluginOptions extends ModuleContext {
  version: string
  pingDatabase: () => Promise<void>
}

async function health(
  app: FastifyInstance,
  { config, content, version, pingDatabase }: HealthPluginOptions,
): Promise<void> {
  const service = new HealthService({
    version,
    pingDatabase,
    content,
    blockchainConfigured: config.blockchainRpcUrl !== undefined,
  })
  await app.register(healthRoutes, { prefix: '/api/health', health: service })
}

export const healthPlugin = fp(health, { name: 'health', fastify: '5.x' })
