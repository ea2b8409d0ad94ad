/**
 * Safe retries of creating POSTs (draft-ietf-httpapi-idempotency-key-header): on the routes that
 * take an Idempotency-Key, the client sends one (a fresh UUID unless the caller set its own) and,
 * when the answer is lost (the connection failed) or the service answers 502/503/504, or 409
 * because the first attempt is still being processed, sends the same request with the same key
 * again. The service answers the first result, so a retry never creates a second resource.
 * Other routes are sent once, as they are not safe to repeat.
 */
import { KEYED_POST_ROUTES } from './generated/keyed-routes.js'

export interface RetryOptions {
  /** Further attempts after the first (default 2; 0 sends once, still with a key). */
  retries?: number
  /** Wait before the first retry, doubled for each next one (default 250 ms); a Retry-After in seconds counts instead, up to 5 s. */
  delayMs?: number
}

type Fetch = (request: Request) => Promise<Response>

const RETRY_STATUSES = new Set([409, 502, 503, 504])
const MAX_RETRY_AFTER_MS = 5000

// Path templates as patterns: `{did}` is one path segment; a base URL's own path may precede them.
const KEYED = KEYED_POST_ROUTES.map(
  (route) => new RegExp(`${route.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}/]+\}/g, '[^/]+')}$`),
)

/** True when POST to this path takes an Idempotency-Key. */
export function takesIdempotencyKey(pathname: string): boolean {
  return KEYED.some((pattern) => pattern.test(pathname))
}

export function retryingFetch(fetch: Fetch, options: RetryOptions = {}): Fetch {
  const retries = options.retries ?? 2
  const delayMs = options.delayMs ?? 250
  return async (request) => {
    if (request.method !== 'POST' || !takesIdempotencyKey(new URL(request.url).pathname)) return fetch(request)
    const headers = new Headers(request.headers)
    if (!headers.has('idempotency-key')) headers.set('idempotency-key', `"${uuidV4()}"`)
    // Buffered once: each attempt needs the same body, and a stream can be read only once.
    const body = await request.arrayBuffer()
    const attempt = () => fetch(new Request(request.url, { method: 'POST', headers, body, signal: request.signal }))
    for (let n = 0; ; n++) {
      let wait = delayMs * 2 ** n
      try {
        const response = await attempt()
        if (n >= retries || !RETRY_STATUSES.has(response.status) || (response.status === 409 && !inProgress(response)))
          return response
        wait = retryAfterMs(response) ?? wait
        await response.body?.cancel()
      } catch (error) {
        // A fetch that could not complete is a TypeError (WHATWG Fetch); an abort is the caller's choice.
        if (n >= retries || !(error instanceof TypeError) || request.signal.aborted) throw error
      }
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }
}

// 409 also means "already exists"; the service marks the key's own 409 (first still in progress) with Retry-After.
function inProgress(response: Response): boolean {
  return response.headers.has('retry-after')
}

// RFC 9562 version 4 from getRandomValues, which (unlike randomUUID) browsers offer on plain-http pages too.
function uuidV4(): string {
  const b = crypto.getRandomValues(new Uint8Array(16))
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

function retryAfterMs(response: Response): number | undefined {
  const seconds = Number(response.headers.get('retry-after'))
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : undefined
}
