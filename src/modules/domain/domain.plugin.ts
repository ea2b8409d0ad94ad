import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createDnsResolver, type DnsResolver } from '../../adapters/dns.js'
import type { ModuleContext } from '../shared/module-context.js'
import { domainRoutes } from './domain.routes.js'
import { DomainService } from './domain.service.js'

export interface DomainPluginOptions extends ModuleContext {
  /** DNS edge (domain TXT proofs); default the system resolver with OUTBOUND_TIMEOUT_MS. */
  dns?: DnsResolver
}

/** Domain linkage proofs of DIDs (/api/domain). */
async function domain(app: FastifyInstance, { db, clock, config, httpGet, dns }: DomainPluginOptions): Promise<void> {
  const timeoutMs = config.outboundTimeoutMs
  const domains = new DomainService({
    db,
    clock,
    httpGet,
    dns: dns ?? createDnsResolver({ timeoutMs }),
    resolver: app.didResolver,
    timeoutMs,
  })
  await app.register(domainRoutes, { prefix: '/api/domain', domains, idempotency: app.idempotency })
}

export const domainPlugin = fp(domain, { name: 'domain', fastify: '5.x', dependencies: ['identity', 'idempotency'] })
