import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ModuleContext } from '../shared/module-context.js'
import { DbKeyStore } from './key-store.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's own signing and encryption keys, sealed under the master key. */
    keys: DbKeyStore
  }
}

async function keys(app: FastifyInstance, { db, masterKey, clock }: ModuleContext): Promise<void> {
  app.decorate('keys', new DbKeyStore(db, masterKey, () => clock.now()))
}

export const keysPlugin = fp(keys, { name: 'keys', fastify: '5.x' })
