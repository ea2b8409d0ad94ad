import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ConsentService } from './consent.service.js'

/** Wallet consent routes (being written). */
export const consentRoutes: FastifyPluginAsyncTypebox<{ consents: ConsentService }> = async () => {}
