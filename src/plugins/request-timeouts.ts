import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

export interface BodyRate {
  windowMs: number
  minBytesPerSecond: number
}

/**
 * Fastify options for the HTTP server's own limits, so every server built by buildApp (npm
 * start and the tests alike) has them. Node checks them every connectionsCheckingInterval,
 * here a quarter of the headers timeout (at most 5 s), which bounds how late a cut comes.
 * No socket idle timeout (Fastify's connectionTimeout): it would also cut a request whose
 * handler works longer than that without writing, not only a slow client.
 */
export function serverTimeoutOptions(t: { requestTimeoutMs: number; headersTimeoutMs: number }) {
  return {
    requestTimeout: t.requestTimeoutMs,
    http: {
      requestTimeout: t.requestTimeoutMs,
      headersTimeout: t.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(5000, Math.floor(t.headersTimeoutMs / 4))),
    },
  }
}

/**
 * A minimum body rate: while a request body is being read, each window must deliver at least
 * windowMs × minBytesPerSecond bytes, or the connection is answered 408 and closed (Apache's
 * mod_reqtimeout MinRate, measured per window). An idle timeout alone is beaten by a byte sent
 * just before it expires, and a total time limit long enough for a large upload on a slow link
 * would hold a trickling connection for minutes; a rate cuts the trickle within one window and
 * leaves any upload that keeps moving alone (REQUEST_TIMEOUT_MS still caps it).
 */
async function bodyRatePlugin(app: FastifyInstance, rate: BodyRate): Promise<void> {
  const windowBytes = Math.max(1, Math.ceil((rate.windowMs * rate.minBytesPerSecond) / 1000))
  // One sweep per window for every body in flight, rather than a timer and socket listeners per
  // request (a keep-alive socket would collect a listener per request it carries).
  // A body is first judged at the second sweep after it began, so it always has a whole window.
  const reading = new Map<FastifyRequest, { reply: FastifyReply; seen: number; judged: boolean }>()
  const sweep = setInterval(() => {
    for (const [request, watch] of reading) {
      const req = request.raw
      const read = req.socket.bytesRead
      // Only the client's pace counts: while nobody reads the body (the service is busy before
      // parsing, or pushing back), the socket is paused and reads nothing.
      if (watch.judged && read - watch.seen < windowBytes && req.readableFlowing === true && !req.complete) {
        reading.delete(request)
        request.log.info(
          { bytesInWindow: read - watch.seen, windowMs: rate.windowMs },
          'request body too slow: connection closed',
        )
        if (!watch.reply.raw.headersSent && req.socket.writable) req.socket.write(timeoutResponse(String(request.id)))
        req.socket.destroy()
      } else {
        watch.seen = read
        watch.judged = true
      }
    }
  }, rate.windowMs)
  sweep.unref()
  app.addHook('onClose', async () => clearInterval(sweep))
  app.addHook('onRequest', (request, reply, done) => {
    const req = request.raw
    if (hasBody(req)) {
      reading.set(request, { reply, seen: req.socket.bytesRead, judged: false })
      const stop = () => reading.delete(request)
      req.once('end', stop)
      req.once('close', stop)
    }
    done()
  })
}

function hasBody(req: IncomingMessage): boolean {
  // An injected request (light-my-request) has no real socket to watch.
  if (typeof req.socket?.bytesRead !== 'number') return false
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
}

function timeoutResponse(requestId: string): string {
  const body = JSON.stringify({
    success: false,
    message: 'The request body arrived too slowly',
    code: 'REQUEST_TIMEOUT',
    request_id: requestId,
  })
  return `HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
}

export default fp(bodyRatePlugin, { name: 'request-timeouts' })
