import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createBbsPool, type BbsEngine } from '../crypto/bbs/bbs-pool.js'
import { Bbs2023Pool, type Bbs2023Engine } from '../modules/credentials/formats/registered-formats.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The BBS worker pool (Dock BBS signatures and proofs). */
    bbs: BbsEngine
    /** The bbs-2023 worker pool (RDF canonicalization and IETF BBS). */
    bbs2023: Bbs2023Engine
  }
}

export interface WorkerPoolsOptions {
  workers: number
  /** Pools given by the caller (tests); made, and closed with the app, when not given. */
  bbs?: BbsEngine
  bbs2023?: Bbs2023Engine
}

async function workerPools(app: FastifyInstance, options: WorkerPoolsOptions): Promise<void> {
  const bbs = options.bbs ?? createBbsPool({ size: options.workers })
  if (!options.bbs) app.addHook('onClose', async () => bbs.close())
  const bbs2023 = options.bbs2023 ?? new Bbs2023Pool(options.workers)
  if (!options.bbs2023) app.addHook('onClose', async () => bbs2023.close())
  app.decorate('bbs', bbs)
  app.decorate('bbs2023', bbs2023)
}

export const workerPoolsPlugin = fp(workerPools, { name: 'worker-pools', fastify: '5.x' })
