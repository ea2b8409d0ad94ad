import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { DatabaseHandle } from '../db/connect.js'
import { PgliteMaintenance } from '../db/pglite-maintenance.js'

export interface DatabaseLifecycleOptions {
  database: DatabaseHandle
  /** PGLITE_MAINTENANCE_MS; 0: none. */
  maintenanceMs: number
}

/**
 * The database's housekeeping and its close. Registered before every module: Fastify runs close
 * hooks in the reverse order of their registration, so the handle closes after every module's own
 * close hook (the rate limiter's final flush, the outboxes' last writes).
 */
async function databaseLifecycle(
  app: FastifyInstance,
  { database, maintenanceMs }: DatabaseLifecycleOptions,
): Promise<void> {
  // Added first, so it runs last of this plugin's close hooks too (after the maintenance stops).
  app.addHook('onClose', async () => database.close())
  // The embedded database has no autovacuum: this stands in for it (PostgreSQL runs its own).
  if (database.engine === 'pglite' && maintenanceMs > 0) {
    const log = app.log.child({ module: 'pglite-maintenance' })
    const maintenance = new PgliteMaintenance(database.db, {
      intervalMs: maintenanceMs,
      onStep: (step) => log.debug(step, 'table maintained'),
      onError: (err) => log.warn({ err }, 'database maintenance failed; retrying at the next round'),
    })
    app.addHook('onReady', async () => maintenance.start())
    app.addHook('onClose', async () => maintenance.stop())
  }
}

export const databaseLifecyclePlugin = fp(databaseLifecycle, { name: 'database-lifecycle', fastify: '5.x' })
