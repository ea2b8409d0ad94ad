import type { HttpRequest } from './guarded-fetch.js'

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304])

/**
 * The WHATWG `fetch` face of the guarded request, for protocol clients that take a `fetch`
 * (@openid4vc/*): the URL a user pasted (an offer, an authorization request) then goes through
 * the same SSRF guard, size cap and deadline as every other outgoing call.
 */
export function fetchApiOver(request: HttpRequest): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
    const headers: Record<string, string> = {}
    new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).forEach((value, name) => {
      headers[name] = value
    })
    const body = await bodyBytes(init?.body, headers)
    const res = await request(url, { method, headers, ...(body ? { body } : {}) })
    return new Response(NULL_BODY_STATUSES.has(res.status) ? null : Buffer.from(res.body), {
      status: res.status,
      headers: res.headers,
    })
  }
}

async function bodyBytes(body: RequestInit['body'], headers: Record<string, string>): Promise<Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string') return new TextEncoder().encode(body)
  if (body instanceof URLSearchParams) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8'
    return new TextEncoder().encode(body.toString())
  }
  if (body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  // Blob, FormData, streams: what the protocol clients never send; read through Response.
  return new Uint8Array(await new Response(body).arrayBuffer())
}
