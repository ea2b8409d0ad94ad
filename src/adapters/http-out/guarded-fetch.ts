/**
 * Outgoing HTTP(S) GET for documents published by third parties (did:web, domain checks).
 * The URL comes from users, so it is an SSRF vector: the private-address check runs inside
 * the socket's `lookup`, on the very addresses the socket then connects to, which closes the
 * DNS-rebinding gap of "resolve, check, then let the HTTP client resolve again" (the guard
 * itself lives in address-guard.ts, shared with the callbacks' guarded POST).
 */
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import { AppError, DependencyUnavailableError, ValidationError } from '../../errors.js'
import { createAddressGuard, hostOf, parseHttpUrl, RefusedAddress, type ResolvedAddress } from './address-guard.js'

export type { ResolvedAddress } from './address-guard.js'

export interface HttpResponse {
  status: number
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>
  body: Uint8Array
  /** The URL of the final hop, after redirects. */
  url: string
}

export type HttpGet = (url: string, init?: { accept?: string }) => Promise<HttpResponse>

/** Any method, with headers and a body: what a protocol client (OpenID4VCI/VP) sends. */
export interface OutgoingRequest {
  method: string
  /** Lower-case names. */
  headers: Record<string, string>
  body?: Uint8Array
}

/** One guarded request; redirects are followed for GET and HEAD only (a POST's body is never re-sent elsewhere). */
export type HttpRequest = (url: string, request: OutgoingRequest) => Promise<HttpResponse>

export interface GuardedFetchOptions {
  allowPrivate: boolean
  timeoutMs: number
  maxBytes: number
  maxRedirects?: number
  /** DNS edge; default is the OS resolver (`dns.lookup`, all addresses). */
  resolveHost?: (hostname: string) => Promise<ResolvedAddress[]>
  /**
   * Address policy, returning why an address is refused. Default: the IANA special-purpose
   * ranges. Only tests replace it: every address a test can reach locally is non-public by
   * construction, so simulating a "public" hop means narrowing the policy, not the check.
   */
  addressPolicy?: (ip: string) => string | undefined
  userAgent?: string
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

export function createGuardedFetch(options: GuardedFetchOptions): HttpGet {
  const request = createGuardedRequest(options)
  return (url, init = {}) => request(url, { method: 'GET', headers: { accept: init.accept ?? '*/*' } })
}

export function createGuardedRequest(options: GuardedFetchOptions): HttpRequest {
  const maxRedirects = options.maxRedirects ?? 3
  const guard = createAddressGuard(options)

  return async (url, outgoing) => {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), options.timeoutMs)
    try {
      let current = parseUrl(url)
      for (let hop = 0; ; hop++) {
        guard.checkLiteralHost(current)
        const res = await requestOnce(current, outgoing, controller.signal, guard.lookup, options)
        const location = res.headers.location
        const followable = outgoing.method === 'GET' || outgoing.method === 'HEAD'
        if (!followable || !REDIRECT_STATUSES.has(res.status) || location === undefined) return res
        if (hop >= maxRedirects) {
          throw new DependencyUnavailableError(`${url}: more than ${maxRedirects} redirects`)
        }
        const next = parseUrl(location, current)
        if (current.protocol === 'https:' && next.protocol === 'http:') {
          throw new ValidationError(`${current.href} redirects from https to plain http, refused`)
        }
        current = next
      }
    } finally {
      clearTimeout(timer)
    }
  }
}

const parseUrl = (input: string, base?: URL): URL => parseHttpUrl(input, base)

function requestOnce(
  url: URL,
  outgoing: OutgoingRequest,
  signal: AbortSignal,
  lookup: LookupFunction,
  options: GuardedFetchOptions,
): Promise<HttpResponse> {
  const client = url.protocol === 'https:' ? https : http
  return new Promise<HttpResponse>((resolve, reject) => {
    const fail = (err: unknown): void => reject(translate(err, url, signal, options))
    const req = client.request(
      {
        hostname: hostOf(url),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: outgoing.method,
        headers: {
          accept: '*/*',
          ...outgoing.headers,
          'accept-encoding': 'identity',
          'user-agent': options.userAgent ?? 'credential-service/0.1',
          ...(outgoing.body ? { 'content-length': String(outgoing.body.length) } : {}),
        },
        // A fresh socket per request: a pooled socket could have been dialled by another lookup.
        agent: false,
        lookup,
        signal,
      },
      (res) => {
        const status = res.statusCode ?? 0
        const headers = flattenHeaders(res.headers)
        if (REDIRECT_STATUSES.has(status)) {
          res.destroy()
          resolve({ status, headers, body: new Uint8Array(0), url: url.href })
          return
        }
        const declared = Number(headers['content-length'] ?? '0')
        if (declared > options.maxBytes) {
          fail(tooLarge(url, options.maxBytes))
          req.destroy()
          return
        }
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > options.maxBytes) {
            fail(tooLarge(url, options.maxBytes))
            req.destroy()
            return
          }
          chunks.push(chunk)
        })
        res.on('end', () => {
          if (size > options.maxBytes) return
          resolve({ status, headers, body: new Uint8Array(Buffer.concat(chunks)), url: url.href })
        })
        res.on('error', fail)
        res.on('close', () => {
          if (!res.complete) fail(new Error('connection closed before the body was complete'))
        })
      },
    )
    req.on('error', fail)
    req.end(outgoing.body)
  })
}

function translate(err: unknown, url: URL, signal: AbortSignal, options: GuardedFetchOptions): AppError {
  if (err instanceof AppError) return err
  if (signal.aborted) {
    return new DependencyUnavailableError(`${url.origin} did not answer within ${options.timeoutMs} ms`)
  }
  if (err instanceof RefusedAddress) return new ValidationError(`${err.message}, refused`)
  const code = (err as { code?: unknown }).code
  const detail = typeof code === 'string' ? code : err instanceof Error ? err.message : 'unknown error'
  return new DependencyUnavailableError(`${url.origin} is unreachable (${detail})`, { cause: err })
}

function tooLarge(url: URL, maxBytes: number): DependencyUnavailableError {
  return new DependencyUnavailableError(`${url.href}: response larger than ${maxBytes} bytes`)
}

function flattenHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}
