import type { FastifyInstance } from 'fastify'
import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'
import type { KeyStore } from '../keys/key-store.js'
import type { VerifierAccess } from './verifier-access.js'
import { verifierCertificateRoutes } from './verifier-certificates.routes.js'
import { VerifierCertificateService } from './verifier-certificates.service.js'
import { VerifierOutsideCaService } from './verifier-outside-ca.service.js'

export type { VerifierAccess }

/** The verifiers' access certificates (docs/adr/0044-verifier-certificates.md), under /api/verifier. */
export async function registerVerifierCertificates(
  app: FastifyInstance,
  deps: { db: Database; clock: Clock; keys: KeyStore; publicBaseUrl: string },
): Promise<void> {
  const service = new VerifierCertificateService({ ...deps, host: new URL(deps.publicBaseUrl).hostname })
  app.decorate('verifierAccess', service)
  await app.register(verifierCertificateRoutes, {
    prefix: '/api/verifier',
    certificates: service,
    outside: new VerifierOutsideCaService(service),
  })
}
