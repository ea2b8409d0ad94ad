import { randomUUID } from 'node:crypto'
import multipart from '@fastify/multipart'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Clock } from '../adapters/clock.js'
import type { Config } from '../config.js'
import type { Database } from '../db/database.js'
import { RateLimiter } from '../modules/rate-limit/rate-limiter.js'
import { VC_API_SECURITY_SCHEME, vcApiSecurityScheme } from '../modules/vc-api/vc-api-scopes.js'
import authPlugin from './auth.js'
import bodyLimits from './body-limits.js'
import didPathParams from './did-path-params.js'
import errorHandler, { frameworkErrorReply } from './error-handler.js'
import jsonBody from './json-body.js'
import lingeringClose from './lingering-close.js'
import { logOptions, RouteWords, type LogSink } from './log-options.js'
import metrics from './metrics.js'
import { finishOpenApiDocument } from './openapi-document.js'
import rateLimit from './rate-limit.js'
import requestTimeouts, { serverTimeoutOptions } from './request-timeouts.js'
import routeTable from './route-table.js'
import securityHeaders from './security-headers.js'
import validation from './validation.js'

/** The Fastify instance with the service's server options: logging, timeouts, limits, request ids, proxies, TLS. */
export function createServer(config: Config, logger: false | { sink: LogSink } | undefined): FastifyInstance {
  const routeWords = new RouteWords()
  const app = Fastify({
    logger: logger === false ? false : logOptions(config.logLevel, routeWords, logger?.sink),
    ...serverTimeoutOptions(config),
    bodyLimit: config.bodyLimitBytes,
    // DIDs travel as path parameters; RSA and BLS did:key identifiers exceed the default 100.
    routerOptions: { maxParamLength: 4096 },
    frameworkErrors: frameworkErrorReply,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID()
    },
    return503OnClosing: true,
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    // HTTPS when configured (TLS_CERT_FILE, TLS_KEY_FILE); Fastify types an https server separately.
    ...((config.tls ? { https: config.tls } : {}) as object),
  }).withTypeProvider<TypeBoxTypeProvider>()
  // The only path words an unmatched URL may show in the log.
  app.addHook('onRoute', (route) => routeWords.add(route.url))
  return app
}

/** TRUST_PROXY as a hop count: trust that many proxies in front of the service. */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops

export interface HttpFoundationOptions {
  config: Config
  db: Database
  clock: Clock
  version: string
}

/**
 * What every route shares, registered before any module: the error schema, body parsing and
 * limits, timeouts, validation, errors, security headers, the OpenAPI document and its UI,
 * multipart, metrics, rate limits and the access hook.
 */
async function httpFoundation(
  app: FastifyInstance,
  { config, db, clock, version }: HttpFoundationOptions,
): Promise<void> {
  app.addSchema({
    $id: 'ErrorResponse',
    type: 'object',
    properties: {
      success: { type: 'boolean' },
      message: { type: 'string' },
      code: { type: 'string' },
      request_id: { type: 'string' },
      details: { type: 'object', additionalProperties: true },
      // RFC 6749 §5.2: the token endpoint's errors (error-handler.ts sets them from details.oauth_error).
      error: { type: 'string' },
      error_description: { type: 'string' },
    },
    required: ['success', 'message', 'code'],
  })
  // JSON and multipart only: anything else is 415 (Fastify also parses text/plain by default).
  app.removeContentTypeParser('text/plain')
  await app.register(requestTimeouts, {
    windowMs: config.bodyRateWindowMs,
    minBytesPerSecond: config.bodyMinBytesPerSecond,
  })
  await app.register(lingeringClose)
  // Body limits first: the route table records the limit each route ends up with.
  await app.register(bodyLimits, {
    large: config.bodyLimitBytes,
    small: Math.min(config.smallBodyLimitBytes, config.bodyLimitBytes),
  })
  await app.register(routeTable)
  await app.register(validation)
  await app.register(jsonBody)
  await app.register(errorHandler)
  await app.register(securityHeaders, {
    corsOrigins: config.corsOrigins,
    hsts: config.publicBaseUrl.startsWith('https:'),
  })
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Credential and Presentation Service', version },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          adminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-Key' },
          [VC_API_SECURITY_SCHEME]: vcApiSecurityScheme(config.publicBaseUrl),
        },
      },
      security: [{ bearerAuth: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // operationIds and the main routes' examples (src/plugins/openapi-document.ts).
    transformObject: (document) =>
      finishOpenApiDocument('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  })
  await app.register(swaggerUi, { routePrefix: '/api/docs' })
  await app.register(multipart, {
    limits: { fileSize: config.avatarMaxBytes, files: 1, fields: 10, fieldSize: 1024 },
    throwFileSizeLimit: true,
  })
  await app.register(metrics)
  const now = () => clock.now().getTime()
  const limiters = {
    auth: new RateLimiter(db, config.rateLimitAuthPerMinute, now),
    resolve: new RateLimiter(db, config.rateLimitResolvePerMinute, now),
  }
  await app.register(rateLimit, { limiters })
  await app.register(didPathParams)
  // The one access hook: session tokens (the auth module) and the VC API's access tokens.
  await app.register(authPlugin, {
    tokens: app.sessionTokens,
    adminApiKey: config.adminApiKey,
    vcApiTokens: app.vcApiTokens,
  })
}

export const httpFoundationPlugin = fp(httpFoundation, {
  name: 'http-foundation',
  fastify: '5.x',
  dependencies: ['session-tokens', 'vc-api-tokens'],
})
