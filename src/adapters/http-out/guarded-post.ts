/**
 * Outgoing HTTP(S) POST to URLs chosen by users (callbacks). Same SSRF guard as the guarded
 * GET (address-guard.ts: checked on the addresses the socket connects to, so DNS rebinding
 * cannot slip past it), plus what a webhook sender needs:
 * - redirects are never followed: a 3xx is answered as its status, for the caller to treat as
 *   a failure (following one would re-send a signed body to a host the user did not name);
 * - the response body is read up to `maxResponseBytes` and thrown away (only the status
 *   matters; reading it lets the receiver finish cleanly, the cap keeps a hostile one cheap);
 * - one deadline (`timeoutMs`) covers DNS, connect, upload and the status line.
 *
 * Errors: ValidationError when the request must never be retried as is (not an http(s) URL,
 * credentials in it, a refused address); DependencyUnavailableError for everything transient
 * (timeout, refused connection, DNS failure, reset). Messages name the origin only, never the
 * path or query, which often carry the receiver's own secret.
 */
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import { AppError, DependencyUnavailableError, ValidationError } from '../../errors.js'
import { createAddressGuard, hostOf, parseHttpUrl, RefusedAddress, type AddressGuardOptions } from './address-guard.js'

export interface HttpPostResponse {
  status: number
}

/** Sends `body` with `headers` (lower-case names); resolves with the status of any answer. */
export type HttpPost = (url: string, body: Uint8Array, headers: Record<string, string>) => Promise<HttpPostResponse>

export interface GuardedPostOptions extends AddressGuardOptions {
  timeoutMs: number
  /** How much of a response body is read (then discarded) before the socket is closed. */
  maxResponseBytes?: number
  userAgent?: string
}

const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024

export function createGuardedPost(options: GuardedPostOptions): HttpPost {
  const guard = createAddressGuard(options)
  return async (url, body, headers) => {
    if (!URL.canParse(url)) throw new ValidationError('Not a valid URL')
    const target = parseHttpUrl(url, undefined, 'called')
    guard.checkLiteralHost(target)
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), options.timeoutMs)
    try {
      return await postOnce(target, body, headers, controller.signal, guard.lookup, options)
    } finally {
      clearTimeout(timer)
    }
  }
}

function postOnce(
  url: URL,
  body: Uint8Array,
  headers: Record<string, string>,
  signal: AbortSignal,
  lookup: LookupFunction,
  options: GuardedPostOptions,
): Promise<HttpPostResponse> {
  const client = url.protocol === 'https:' ? https : http
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  return new Promise<HttpPostResponse>((resolve, reject) => {
    let status: number | undefined
    let settled = false
    // Once the status line is in, the receiver has answered: whatever happens to the rest of
    // the body (cap, timeout, reset) the outcome is that status.
    const answered = (): void => {
      if (settled || status === undefined) return
      settled = true
      resolve({ status })
    }
    const failed = (err: unknown): void => {
      if (settled) return
      if (status !== undefined) return answered()
      settled = true
      reject(translate(err, url, signal, options))
    }
    const req = client.request(
      {
        hostname: hostOf(url),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'user-agent': options.userAgent ?? 'credential-service-callbacks/0.1',
          ...headers,
          'content-length': String(body.byteLength),
          'accept-encoding': 'identity',
          connection: 'close',
        },
        // A fresh socket per request: a pooled socket could have been dialled by another lookup.
        agent: false,
        lookup,
        signal,
      },
      (res) => {
        status = res.statusCode ?? 0
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > maxResponseBytes) {
            answered()
            res.destroy()
          }
        })
        res.on('end', answered)
        res.on('error', answered)
        res.on('close', answered)
      },
    )
    req.on('error', failed)
    req.end(body)
  })
}

function translate(err: unknown, url: URL, signal: AbortSignal, options: GuardedPostOptions): AppError {
  if (err instanceof AppError) return err
  if (signal.aborted)
    return new DependencyUnavailableError(`${url.origin} did not answer within ${options.timeoutMs} ms`)
  if (err instanceof RefusedAddress) return new ValidationError(`${err.message}, refused`)
  const code = (err as { code?: unknown }).code
  const detail = typeof code === 'string' ? code : err instanceof Error ? err.message : 'unknown error'
  return new DependencyUnavailableError(`${url.origin} is unreachable (${detail})`, { cause: err })
}
