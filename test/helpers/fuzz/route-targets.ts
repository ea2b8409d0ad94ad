import type { FastifyInstance } from 'fastify'
import { accessOf, type Access } from '../../../src/plugins/route-access.js'
import { createValidators } from '../../../src/plugins/validation.js'
import { bodyCheck, textCheck, validSample, type Check, type SchemaNode } from './schema-samples.js'

/** One route as the fuzzer drives it: its schemas, the app's own checks for them, and a valid baseline. */
export interface Target {
  readonly method: string
  /** The pattern as registered, e.g. `/api/issuer/:did/schemas/:schema_id`. */
  readonly url: string
  readonly group: string
  readonly access: Access
  /** Path parameter names in order (`*` for a wildcard). */
  readonly paramNames: readonly string[]
  readonly schemas: { readonly params?: SchemaNode; readonly body?: SchemaNode; readonly querystring?: SchemaNode }
  readonly check: { readonly params: Check; readonly body: Check; readonly query: Check }
  /** Fastify reads a body for this method (not GET/HEAD). */
  readonly takesBody: boolean
  readonly multipart: boolean
  readonly bodyLimit: number
  /**
   * Some input of it can be refused: a schema, a body (content type, size, JSON), or credentials.
   * Not so for public reads without schemas (health, JWKS, docs): their inputs are ignored.
   */
  readonly refusable: boolean
  /** It reads something hostile values can go into: path parameters, a query, a body. */
  readonly hasInputs: boolean
  /** A request the schemas accept, with seeded ids where the names match (`hints`). */
  readonly base: {
    readonly params: Readonly<Record<string, string>>
    readonly body: unknown
    readonly query: Readonly<Record<string, unknown>>
  }
}

const accept: Check = () => true

/** `/api/blockchain-legacy/...` -> `blockchain-legacy`, `/metrics` -> `metrics`. */
export function groupOf(url: string): string {
  const segments = url.split('/').filter(Boolean)
  return (segments[0] === 'api' ? segments[1] : segments[0]) ?? '(root)'
}

export function paramNamesOf(url: string): string[] {
  return url
    .split('/')
    .flatMap((segment) => (segment.startsWith(':') ? [segment.slice(1)] : segment === '*' ? ['*'] : []))
}

/**
 * Every route in the app's route table, as fuzz targets. `hintsFor(url)` maps a property or parameter
 * name to a meaningful value (the owner's DID, a seeded record id) used when the schema accepts it.
 * Routes whose body schema defeats the sampler are returned in `unsampled` (the caller fails on them).
 */
export function targetsOf(
  app: FastifyInstance,
  hintsFor: (url: string) => Record<string, unknown>,
  defaultBodyLimit: number,
): { targets: Target[]; unsampled: string[] } {
  // The app's own validators: "invalid" means invalid for the validator the app really runs.
  const ajv = createValidators()
  const targets: Target[] = []
  const unsampled: string[] = []
  for (const route of app.routeTable) {
    const schema = (route.schema ?? {}) as {
      params?: SchemaNode
      body?: SchemaNode
      querystring?: SchemaNode
      consumes?: string[]
    }
    const paramNames = paramNamesOf(route.url)
    const hints = hintsFor(route.url)
    const params: Record<string, string> = {}
    for (const name of paramNames) {
      const sub = (schema.params?.properties as Record<string, SchemaNode> | undefined)?.[name]
      const sample = sub ? validSample(ajv.text, sub, hints, name) : (hints[name] ?? 'fuzz')
      params[name] = String(sample ?? hints[name] ?? 'fuzz')
    }
    const body = schema.body ? validSample(ajv.body, schema.body, hints) : undefined
    if (schema.body && body === undefined) unsampled.push(`${route.method} ${route.url}`)
    const query = schema.querystring
      ? (validSample(ajv.text, schema.querystring, hints) as Record<string, unknown> | undefined)
      : {}
    if (query === undefined) unsampled.push(`${route.method} ${route.url} (querystring)`)
    targets.push({
      method: route.method,
      url: route.url,
      group: groupOf(route.url),
      access: accessOf(route.method, route.url),
      paramNames,
      schemas: { params: schema.params, body: schema.body, querystring: schema.querystring },
      check: {
        params: schema.params ? textCheck(ajv.text, schema.params) : accept,
        body: schema.body ? bodyCheck(ajv.body, schema.body) : accept,
        query: schema.querystring ? textCheck(ajv.text, schema.querystring) : accept,
      },
      takesBody: route.method !== 'GET' && route.method !== 'HEAD',
      multipart: schema.consumes?.includes('multipart/form-data') ?? false,
      bodyLimit: route.bodyLimit ?? defaultBodyLimit,
      refusable:
        Boolean(schema.params || schema.querystring || schema.body) ||
        (route.method !== 'GET' && route.method !== 'HEAD') ||
        accessOf(route.method, route.url) !== 'public',
      hasInputs: Boolean(schema.params || schema.querystring || schema.body || schema.consumes),
      base: { params, body, query: query ?? {} },
    })
  }
  return { targets, unsampled }
}
