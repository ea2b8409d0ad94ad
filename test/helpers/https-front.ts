import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import tls from 'node:tls'
import type { FastifyInstance } from 'fastify'

const CERT = readFileSync(new URL('../fixtures/tls/localhost-cert.pem', import.meta.url), 'utf8')
const KEY = readFileSync(new URL('../fixtures/tls/localhost-key.pem', import.meta.url), 'utf8')

/**
 * An HTTPS listener on localhost in front of an app (injected, so the app needs no port of its
 * own), for libraries that only fetch `https://` (web-did-resolver builds https URLs from a
 * did:web). Its certificate is trusted process-wide for the test (tls.setDefaultCACertificates,
 * which node-fetch and the global fetch both use). Open it first: its origin is the app's
 * PUBLIC_BASE_URL, so the app's did:webs name it.
 */
export class HttpsFront {
  private constructor(
    private readonly server: Server,
    readonly origin: string,
    private readonly target: { app?: FastifyInstance },
  ) {}

  static async open(): Promise<HttpsFront> {
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), CERT])
    const target: { app?: FastifyInstance } = {}
    const server = createServer({ cert: CERT, key: KEY }, (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const app = target.app
        if (!app) return res.writeHead(503).end()
        app
          .inject({
            method: req.method as 'GET',
            url: req.url ?? '/',
            headers: req.headers,
            payload: chunks.length ? Buffer.concat(chunks) : undefined,
          })
          .then((answer) => {
            res.writeHead(answer.statusCode, answer.headers as Record<string, string>)
            res.end(answer.rawPayload)
          })
          .catch(() => res.writeHead(502).end())
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return new HttpsFront(server, `https://localhost:${(server.address() as AddressInfo).port}`, target)
  }

  serve(app: FastifyInstance): void {
    this.target.app = app
  }

  /** Kept-alive connections (fetch keeps them) would hold close() open: they are dropped. */
  close(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
