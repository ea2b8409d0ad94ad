import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** At most this much of a refused body is read and dropped before the connection is cut. */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024
/** And for at most this long (nginx's lingering_time). */
export const LINGER_MAX_MS = 30_000

/**
 * RFC 9112 §9.6 lingering close, for a response sent before its request body was read (a 413,
 * or a 401 before parsing). Node closes a `Connection: close` socket as soon as the answer is
 * flushed; the body still arriving then meets a closed socket, and the kernel's reset makes the
 * client fail its write (EPIPE, ECONNRESET) and can erase the answer before it is read. So the
 * write side is closed first, the rest of the body is read and dropped, and the socket is closed
 * when the client closes its side or its body ends, or after `bounds`, whichever comes first.
 */
export function lingerBeforeClose(
  socket: Socket,
  request: IncomingMessage,
  bounds = { bytes: LINGER_MAX_BYTES, ms: LINGER_MAX_MS },
): void {
  // Node's server calls destroySoon() on a socket whose response carries `Connection: close`.
  socket.destroySoon = function lingeringClose(this: Socket) {
    const start = this.bytesRead
    const close = () => {
      clearTimeout(timer)
      this.destroy()
    }
    const closeWhenFlushed = () => (this.writableFinished ? close() : this.once('finish', close))
    const timer = setTimeout(close, bounds.ms).unref()
    this.end()
    if (request.complete) return closeWhenFlushed()
    // The server's parser still reads the body (Node dumps an unread one) until it ends.
    request.once('end', closeWhenFlushed)
    this.on('data', () => {
      if (this.bytesRead - start > bounds.bytes) close()
    })
    this.once('end', close)
    this.once('close', () => clearTimeout(timer))
  }
}

/** Every answer sent before its request's body was read closes the connection, lingering (above). */
async function lingeringClosePlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', async (request, reply) => {
    const req = request.raw
    // light-my-request's injected requests have no socket to linger on.
    if (req.complete || typeof req.socket?.destroySoon !== 'function') return
    reply.header('connection', 'close')
    lingerBeforeClose(req.socket, req)
  })
}

export default fp(lingeringClosePlugin, { name: 'lingering-close' })
