import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ModuleContext } from '../shared/module-context.js'
import { foldBusiest } from './statistics-counters.repository.js'

/** DIDs whose statistics deltas one round of the minute's purge folds (the busiest first). */
const STATISTICS_FOLDS_PER_MINUTE = 100

/** Statistics deltas of DIDs nobody reads are folded every minute too, so none grows without bound. */
async function statistics(app: FastifyInstance, { db }: ModuleContext): Promise<void> {
  const fold = setInterval(() => {
    void foldBusiest(db, STATISTICS_FOLDS_PER_MINUTE).catch((err) =>
      app.log.warn({ err }, 'folding statistics counters failed'),
    )
  }, 60_000)
  fold.unref()
  app.addHook('onClose', async () => clearInterval(fold))
}

export const statisticsPlugin = fp(statistics, { name: 'statistics', fastify: '5.x' })
