import http from 'node:http'
import https from 'node:https'

export interface HttpResponse {
  status: number
  body: string
}

/**
 * A small keep-alive JSON client on node:http (llhttp parser, no WHATWG fetch layers), so the
 * load generator spends as little of the shared CPU as possible. One socket per virtual user
 * at most: each user has one request in flight at a time.
 */
export class JsonClient {
  private readonly agent: http.Agent
  private readonly host: string
  private readonly port: number
  private readonly request: typeof http.request

  /** `ca`: the certificate authority of an https server (the OpenID4VC part's local one). */
  constructor(
    baseUrl: string,
    maxSockets: number,
    private readonly timeoutMs = 10_000,
    ca?: string,
  ) {
    const url = new URL(baseUrl)
    this.host = url.hostname
    this.port = Number(url.port)
    const secure = url.protocol === 'https:'
    this.agent = secure
      ? new https.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, ...(ca ? { ca } : {}) })
      : new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets })
    this.request = secure ? https.request : http.request
  }

  post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResponse> {
    const payload = Buffer.from(JSON.stringify(body))
    return this.send(
      'POST',
      path,
      { 'content-type': 'application/json', 'content-length': String(payload.length), ...headers },
      payload,
    )
  }

  /** A form-encoded POST (application/x-www-form-urlencoded), as an OAuth 2.0 token endpoint takes it. */
  postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<HttpResponse> {
    const payload = Buffer.from(new URLSearchParams(fields).toString())
    return this.send(
      'POST',
      path,
      { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(payload.length), ...headers },
      payload,
    )
  }

  get(path: string, headers: Record<string, string> = {}): Promise<HttpResponse> {
    return this.send('GET', path, headers)
  }

  close(): void {
    this.agent.destroy()
  }

  private send(method: string, path: string, headers: Record<string, string>, payload?: Buffer): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      const req = this.request(
        { agent: this.agent, host: this.host, port: this.port, method, path, headers },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
          res.on('error', reject)
        },
      )
      // Every request is bounded: a stuck server fails the flow instead of hanging the run.
      req.setTimeout(this.timeoutMs, () =>
        req.destroy(Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' })),
      )
      req.on('error', reject)
      req.end(payload)
    })
  }
}

/** One-shot GET without keep-alive, for health polling. */
export function getStatus(url: string, timeoutMs = 2000, ca?: string): Promise<number> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? https.get : http.get
    const req = get(url, { agent: false, timeout: timeoutMs, ...(ca ? { ca } : {}) }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(0))
  })
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of the service's documented answers, read at named fields
export type Json = Record<string, any>

/** The answer's JSON when it has the expected status; else a set-up failure naming `what`. */
export function expectStatus(res: HttpResponse, status: number, what: string): Json {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.body.slice(0, 500)}`)
  return JSON.parse(res.body) as Json
}
