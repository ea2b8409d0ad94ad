import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AppError, type ErrorCode } from '../errors.js'

/** The one place where error codes become HTTP statuses (DESIGN.md "Errors"). */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  DEPENDENCY_UNAVAILABLE: 503,
  INTERNAL: 500,
}

const CODE_BY_STATUS = new Map<number, ErrorCode>(
  Object.entries(STATUS_BY_CODE).map(([code, status]) => [status, code as ErrorCode]),
)

export interface ErrorBody {
  success: false
  message: string
  code: ErrorCode
  request_id: string
  details?: Record<string, unknown>
  /** OAuth 2.0 token-endpoint errors also carry RFC 6749 §5.2's fields. */
  error?: string
  error_description?: string
}

function send(
  reply: FastifyReply,
  request: FastifyRequest,
  status: number,
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
) {
  const body: ErrorBody = { success: false, message, code, request_id: String(request.id) }
  if (details) body.details = details
  if (typeof details?.oauth_error === 'string') {
    body.error = details.oauth_error
    body.error_description = message
    reply.header('cache-control', 'no-store')
  }
  return reply.status(status).type('application/json; charset=utf-8').send(body)
}

/**
 * Errors Fastify raises before routing (bad URL encoding, over-long path parameter): the same
 * body as every other error. Passed as the `frameworkErrors` option.
 */
export function frameworkErrorReply(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status =
    typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400
  return send(reply, request, status, CODE_BY_STATUS.get(status) ?? 'VALIDATION_FAILED', error.message)
}

async function errorHandlerPlugin(app: FastifyInstance): Promise<void> {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      const status = STATUS_BY_CODE[error.code]
      if (status >= 500) {
        request.log.error({ err: error }, 'request failed')
        return send(reply, request, status, error.code, status === 503 ? error.message : 'Internal server error')
      }
      // RFC 9110 §10.2.3: a rate limit, or an Idempotency-Key whose first request is still in progress.
      if (error.details?.retry_after_seconds !== undefined) {
        reply.header('retry-after', String(error.details.retry_after_seconds))
      }
      return send(reply, request, status, error.code, error.message, error.details)
    }
    // Schema validation (Fastify + TypeBox/Ajv): name the field in the message.
    if ('validation' in error && Array.isArray(error.validation)) {
      const fields = error.validation.map((v) => ({
        field: `${error.validationContext ?? 'body'}${v.instancePath.replace(/\//g, '.')}${
          v.keyword === 'required' ? `.${String((v.params as { missingProperty?: string }).missingProperty)}` : ''
        }`,
        problem: v.message ?? 'is invalid',
      }))
      return send(reply, request, 400, 'VALIDATION_FAILED', error.message, { fields })
    }
    // Fastify's own client errors: malformed JSON, body too large, unsupported media type...
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500
    if (status >= 400 && status < 500) {
      const code = CODE_BY_STATUS.get(status) ?? 'VALIDATION_FAILED'
      const message =
        status === 413 ? 'Request body is too large' : status === 415 ? 'Unsupported content type' : error.message
      return send(reply, request, status, code, message)
    }
    request.log.error({ err: error }, 'unhandled error')
    return send(reply, request, 500, 'INTERNAL', 'Internal server error')
  })

  app.setNotFoundHandler((request, reply) =>
    send(reply, request, 404, 'NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`),
  )
}

export default fp(errorHandlerPlugin, { name: 'error-handler' })
