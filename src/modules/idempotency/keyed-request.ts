import type { FastifyRequest } from 'fastify'
import type { KeyedRequest } from './idempotency.service.js'

/**
 * The parts of a request an Idempotency-Key is scoped to and compared on: the caller (the
 * signed-in DID unless given, e.g. an OAuth client), method, path and body (a route whose body is
 * not JSON, such as a multipart upload, passes what identifies it instead).
 */
export function keyedRequest(request: FastifyRequest, options: { caller?: string; body?: unknown } = {}): KeyedRequest {
  const caller = options.caller ?? request.auth?.did
  if (caller === undefined) throw new Error('keyedRequest: an Idempotency-Key needs a caller to belong to')
  return {
    callerDid: caller,
    method: request.method,
    path: request.url.split('?')[0]!,
    header: request.headers['idempotency-key'],
    body: 'body' in options ? options.body : request.body,
  }
}
