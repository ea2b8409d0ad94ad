import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ModuleContext } from '../shared/module-context.js'
import { qrRoutes } from './qr.routes.js'
import { QrService } from './qr.service.js'

/** Short QR links to offers and presentation requests (/api/qr). */
async function qr(app: FastifyInstance, { db, clock, config }: ModuleContext): Promise<void> {
  const service = new QrService({
    db,
    clock,
    publicBaseUrl: config.publicBaseUrl,
    verifiers: app.verifiers,
    offers: app.offers,
  })
  await app.register(qrRoutes, { prefix: '/api/qr', qr: service, idempotency: app.idempotency })
}

export const qrPlugin = fp(qr, { name: 'qr', fastify: '5.x', dependencies: ['verifier', 'issuer', 'idempotency'] })
