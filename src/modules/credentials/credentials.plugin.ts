import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ModuleContext } from '../shared/module-context.js'
import type { LocalDocuments } from './formats/shared/document-loader.js'
import type { FormatRegistry } from './formats/format-registry.js'
import { registeredFormats, type FormatDeps } from './formats/registered-formats.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The credential formats (docs/formats.md), registered in one place. */
    formats: FormatRegistry
    /** JSON-LD documents the service answers itself, without HTTP: its schemas' contexts (Data Integrity formats). */
    localDocuments: LocalDocuments
  }
}

export interface CredentialsPluginOptions extends ModuleContext {
  local: LocalDocuments
  derivedProofs: FormatDeps['derivedProofs']
}

async function credentials(
  app: FastifyInstance,
  { httpGet, config, clock, local, derivedProofs }: CredentialsPluginOptions,
): Promise<void> {
  app.decorate('localDocuments', local)
  app.decorate(
    'formats',
    registeredFormats({
      resolver: app.didResolver,
      httpGet,
      publicBaseUrl: config.publicBaseUrl,
      clock,
      local,
      bbs2023: app.bbs2023,
      derivedProofs,
      documentSigners: app.documentSigners,
    }),
  )
}

export const credentialsPlugin = fp(credentials, {
  name: 'credentials',
  fastify: '5.x',
  dependencies: ['identity', 'worker-pools'],
})
