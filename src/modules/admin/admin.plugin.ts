import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ModuleContext } from '../shared/module-context.js'
import { adminRoutes } from './admin.routes.js'
import { AdminService } from './admin.service.js'

/** The operator's routes (/api/admin), only when ADMIN_API_KEY is set. */
async function admin(app: FastifyInstance, { db, config }: ModuleContext): Promise<void> {
  if (!config.adminApiKey) return
  const service = new AdminService({ db, keys: app.keys, registrableDidMethods: config.registrableDidMethods })
  await app.register(adminRoutes, { prefix: '/api/admin', admin: service, idempotency: app.idempotency })
}

export const adminPlugin = fp(admin, { name: 'admin', fastify: '5.x', dependencies: ['keys', 'idempotency'] })
