import type { FastifyRequest } from 'fastify'

/** Where log lines go: stdout by default, or a stream a test can read back. */
export interface LogSink {
  write(line: string): void
}

/**
 * Path segments that are bearer secrets themselves: a wallet share link's token authorizes
 * whoever holds the URL, so it must not reach the request log.
 */
const SECRET_PATH = /^(\/api\/wallet\/shared\/)[^/?#]+/
/** Query parameters that would be secrets if a client sent them (we never ask for them). */
const SECRET_QUERY = /([?&](?:token|access_token|id_token|api_key|key|signature)=)[^&#]*/gi

export function redactUrl(url: string): string {
  return url.replace(SECRET_PATH, '$1[redacted]').replace(SECRET_QUERY, '$1[redacted]')
}

/**
 * pino options for the service: secret-bearing fields redacted wherever they appear, and the
 * request serializer's URL passed through redactUrl. Bodies and headers are never logged by
 * the serializer; the redact paths cover objects a module might log on purpose.
 */
export function logOptions(level: string, sink?: LogSink): Record<string, unknown> {
  return {
    level,
    ...(sink ? { stream: sink } : {}),
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-admin-key"]',
        'req.headers.cookie',
        '*.token',
        '*.access_token',
        '*.private_key',
        '*.privateKey',
        '*.secret',
        '*.signature',
        '*.encrypted_seed',
        '*.password',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  }
}
