import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'

/** One registered route as the router knows it: what the authorization matrix and fuzz tests walk. */
export interface RouteEntry {
  readonly method: string
  /** The pattern as registered, e.g. `/api/issuer/:did/schemas/:schema_id`. */
  readonly url: string
  readonly schema: FastifySchema | undefined
  readonly bodyLimit: number | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered after this plugin, one entry per method (HEAD included). */
    readonly routeTable: readonly RouteEntry[]
  }
}

/**
 * Records the route table as routes are added, so tests derive their coverage from what the
 * router actually serves: a new route cannot escape the authorization matrix or the fuzzer.
 * Registered before any route (an onRoute hook only sees routes added after it).
 */
async function routeTablePlugin(app: FastifyInstance): Promise<void> {
  const table: RouteEntry[] = []
  app.decorate('routeTable', table)
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods)
      table.push({ method, url: route.url, schema: route.schema, bodyLimit: route.bodyLimit })
  })
}

export default fp(routeTablePlugin, { name: 'route-table' })
