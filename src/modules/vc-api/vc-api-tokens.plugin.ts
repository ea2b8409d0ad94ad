import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ModuleContext } from '../shared/module-context.js'
import { VcApiTokens } from './vc-api-tokens.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The VC API's access tokens, as the access hook checks them and revocation forgets them. */
    vcApiTokens: VcApiTokens
  }
}

async function vcApiTokens(app: FastifyInstance, { db, clock }: ModuleContext): Promise<void> {
  app.decorate('vcApiTokens', new VcApiTokens({ db, clock }))
}

/** The VC API's tokens alone, made before the access hook that checks them. */
export const vcApiTokensPlugin = fp(vcApiTokens, { name: 'vc-api-tokens', fastify: '5.x' })
