import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ModuleContext } from '../shared/module-context.js'
import { certificateRoutes } from './certificates.routes.js'
import { CertificateService } from './certificates.service.js'
import type { DocumentSigners } from './document-signer.js'
import type { IssuerLeafCertificates } from './issuer-leaves.js'
import { IssuerLeafService } from './issuer-leaves.service.js'
import { OutsideIacaService } from './outside-iaca.service.js'
import { registerVerifierCertificates, type VerifierAccess } from './verifier-certificates.plugin.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Each issuer's mdoc Document Signer and IACA root (ISO/IEC 18013-5 Annex B). */
    documentSigners: DocumentSigners
    /** Each issuer's `credential` and `metadata` leaves of its IACA (SD-JWT VC `x5c`, signed metadata). */
    issuerCertificates: IssuerLeafCertificates
    /** Each verifier's access certificate and key (OID4VP 1.0 §5.9.3 x509_san_dns, x509_hash). */
    verifierAccess: VerifierAccess
  }
}

/** The issuers' mdoc certificates (docs/certificates.md). */
async function certificates(app: FastifyInstance, { db, clock, config }: ModuleContext): Promise<void> {
  const service = new CertificateService({ db, keys: app.keys, clock })
  const outside = new OutsideIacaService({ db, keys: app.keys, clock, certificates: service })
  const leaves = new IssuerLeafService({ db, keys: app.keys, clock, certificates: service })
  app.decorate('documentSigners', service)
  app.decorate('issuerCertificates', leaves)
  await app.register(certificateRoutes, { prefix: '/api/issuer', certificates: service, outside, leaves })
  await registerVerifierCertificates(app, { db, clock, keys: app.keys, publicBaseUrl: config.publicBaseUrl })
}

export const certificatesPlugin = fp(certificates, { name: 'certificates', fastify: '5.x', dependencies: ['keys'] })
