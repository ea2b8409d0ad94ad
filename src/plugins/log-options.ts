import type { FastifyRequest } from 'fastify'

/** Where log lines go: stdout by default, or a stream a test can read back. */
export interface LogSink {
  write(line: string): void
}

const REDACTED = '[redacted]'

/** Headers that carry credentials: redacted wherever a headers object is logged (busboy logs its own at trace). */
const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'x-admin-key', 'cookie', 'set-cookie']

/**
 * Path parameters named as identifiers (`did`, `cid`, `*_id`, `*_did`, `*Hash`…) are logged;
 * any other parameter is redacted, so a parameter that is a bearer secret (a share link's
 * `:token`) stays out of the log without a list to keep up to date.
 */
const IDENTIFIER_PARAM = /^(?:did|id|cid|[a-z][a-z_]*(?:_id|_did|_hash)|[a-z][A-Za-z]*(?:Did|Hash))$/

/** A JWT anywhere in a line (a bearer token, whoever logged it): three base64url parts, the first a JSON header. */
const JWT = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]+/g

/**
 * The static segments of the service's own route patterns: the only words an unmatched URL
 * may show in the log, since any other segment is the caller's and may be a secret.
 */
export class RouteWords {
  private readonly words = new Set<string>()

  add(pattern: string): void {
    for (const segment of pattern.split('/'))
      if (segment && !segment.includes(':') && !segment.includes('*')) this.words.add(segment)
  }

  has(segment: string): boolean {
    return this.words.has(segment)
  }
}

/**
 * The request URL as logged, decided by the route the request matched rather than by how the
 * URL was spelled: the route's pattern with its identifier parameters filled in and the query
 * parameters its schema declares; for an unmatched URL, only the service's own route words.
 */
export function loggedUrl(request: FastifyRequest, words: RouteWords): string {
  const [path = '', query] = splitOnce(request.url, '?')
  const pattern = request.routeOptions.url
  if (pattern === undefined) {
    const shown = path
      .split('/')
      .map((segment) => (segment === '' || words.has(segment) ? segment : REDACTED))
      .join('/')
    return query === undefined ? shown : `${shown}?${REDACTED}`
  }
  const params = (request.params ?? {}) as Record<string, string | undefined>
  const shown = pattern.replace(/:(\w+)(?:\([^)]*\))?|\*/g, (whole, name: string | undefined) => {
    const value = params[name ?? '*']
    return value !== undefined && name !== undefined && IDENTIFIER_PARAM.test(name) ? value : REDACTED
  })
  if (query === undefined) return shown
  const declared =
    (request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}
  const kept: string[] = []
  let dropped = false
  for (const [key, value] of new URLSearchParams(query)) {
    if (Object.hasOwn(declared, key)) kept.push(`${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    else dropped = true
  }
  if (dropped) kept.push(REDACTED)
  return kept.length ? `${shown}?${kept.join('&')}` : shown
}

/**
 * pino options for the service. Secrets are kept out by what they are, on every line of the
 * logger and its children (plugins' included): credential headers wherever a headers object
 * is logged, the raw bytes of a malformed request (Node attaches them to the client error),
 * URLs through loggedUrl, and, as a last guard, anything shaped like a JWT.
 */
export function logOptions(level: string, words: RouteWords, sink?: LogSink): Record<string, unknown> {
  return {
    level,
    ...(sink ? { stream: sink } : {}),
    redact: {
      paths: [
        ...SECRET_HEADERS.flatMap((h) => [`headers["${h}"]`, `*.headers["${h}"]`]),
        '*.rawHeaders',
        '*.rawPacket',
        '*.token',
        '*.access_token',
        '*.private_key',
        '*.privateKey',
        '*.secret',
        '*.signature',
        '*.encrypted_seed',
        '*.password',
      ],
      censor: REDACTED,
    },
    hooks: { streamWrite: (line: string) => line.replace(JWT, REDACTED) },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: loggedUrl(request, words),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  }
}

function splitOnce(value: string, separator: string): [string, string | undefined] {
  const at = value.indexOf(separator)
  return at === -1 ? [value, undefined] : [value.slice(0, at), value.slice(at + 1)]
}
