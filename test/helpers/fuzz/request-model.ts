import { Buffer } from 'node:buffer'
import { JSON_LIMITS } from '../../../src/json-limits.js'
import { normalizeDid } from '../../../src/modules/did/did-normalize.js'
import { toJsonText, wellFormed } from './hostile-values.js'
import type { Target } from './route-targets.js'

/** Routes that read `application/x-www-form-urlencoded` bodies besides JSON: the OAuth 2.0 token endpoints (RFC 6749 §3.2, the VC API's and each OpenID4VCI issuer's), the OpenID4VCI PAR endpoint (RFC 9126 §2.1), the OpenID4VP response endpoint, and its request_uri answering a wallet's POST (OID4VP 1.0 §5.10). */
const FORM_ROUTES: ReadonlySet<string> = new Set([
  '/oauth2/token',
  '/issuers/:web_id/oid4vci/token',
  '/issuers/:web_id/oid4vci/par',
  '/openid4vp/responses/:id',
  '/openid4vp/requests/:id',
])
/** Routes whose request is the bare POST (OID4VCI 1.0 §7.1, the nonce endpoint): any content type, the body ignored. */
const BARE_POST_ROUTES: ReadonlySet<string> = new Set(['/issuers/:web_id/oid4vci/nonce'])

/** Who the fuzzer is: requests are sent as the owner of every seeded record, so they reach validation and the handlers. */
export interface FuzzContext {
  readonly ownerDid: string
  readonly ownerToken: string
  /** Another user's DID: a `:did` naming it is someone else's path (403). */
  readonly strangerDid: string
  readonly adminKey: string
  /** An access token of one of the owner's W3C VC API clients: what the /vc-api/ routes take. */
  readonly vcApiToken: string
}

export type Segment = { decoded: string } | { raw: string }
/** A decoded path segment; lone surrogates cannot be percent-encoded (they go as raw bad bytes instead). */
export const seg = (value: string): Segment => ({ decoded: wellFormed(value) })
export type BodyDraft =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; contentType: string }
  | { kind: 'text'; text: string | Buffer; contentType: string | undefined; label: string }
  | { kind: 'multipart'; payload: Buffer; contentType: string; invalid: boolean; label: string }
export type AuthDraft =
  | { kind: 'owner' }
  | { kind: 'none' }
  | { kind: 'authorization'; value: string }
  | { kind: 'admin-key'; value: string | undefined }
  | { kind: 'x-user-did'; value: string }

/** A request before it is built: each part as generated, and what was done to it. */
export interface Draft {
  readonly target: Target
  readonly params: Readonly<Record<string, Segment>>
  readonly query: Readonly<Record<string, unknown>>
  readonly body: BodyDraft
  readonly auth: AuthDraft
  /** Extra request headers (noise: Accept, Range, X-Request-Id...). */
  readonly headers?: Readonly<Record<string, string>>
  readonly labels: readonly string[]
}

export interface BuiltRequest {
  method: string
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
  query?: Record<string, string | string[]>
}

/** What the app must answer: `invalid` is a 4xx (exactly `status` when the refusal is determined). */
export type Verdict = { invalid: true; status: number | undefined; why: string } | { invalid: false }

/** The request as sent: path segments percent-encoded, the body serialized, the credentials set. */
export function build(draft: Draft, ctx: FuzzContext): BuiltRequest | undefined {
  const { target } = draft
  const path = target.url
    .split('/')
    .map((segment) => {
      const name = segment.startsWith(':') ? segment.slice(1) : segment === '*' ? '*' : undefined
      if (name === undefined) return segment
      const s = draft.params[name] ?? { decoded: 'fuzz' }
      return 'raw' in s ? s.raw : encodeURIComponent(s.decoded)
    })
    .join('/')
  // inject() resolves dot segments (WHATWG URL) before the router sees the path: such a request
  // would reach another route, so it is not this route's to judge.
  if (new URL(path, 'http://localhost').pathname !== path) return undefined
  const headers: Record<string, string> = { ...draft.headers }
  const auth = draft.auth
  if (target.access === 'user') {
    if (auth.kind === 'owner' || auth.kind === 'x-user-did') headers.authorization = `Bearer ${ctx.ownerToken}`
    if (auth.kind === 'authorization') headers.authorization = auth.value
    if (auth.kind === 'x-user-did') headers['x-user-did'] = auth.value
  }
  if (target.access === 'client') {
    if (auth.kind === 'owner') headers.authorization = `Bearer ${ctx.vcApiToken}`
    if (auth.kind === 'authorization') headers.authorization = auth.value
  }
  if (target.access === 'admin') {
    const key = auth.kind === 'admin-key' ? auth.value : ctx.adminKey
    if (key !== undefined) headers['x-admin-key'] = key
  }
  let payload: string | Buffer | undefined
  const body = draft.body
  if (target.takesBody && body.kind !== 'none') {
    if (body.kind === 'json') {
      if (body.value !== undefined) {
        payload = toJsonText(body.value)
        headers['content-type'] = body.contentType
      }
    } else if (body.kind === 'text') {
      payload = body.text
      if (body.contentType !== undefined) headers['content-type'] = body.contentType
    } else {
      payload = body.payload
      headers['content-type'] = body.contentType
    }
  }
  const query: Record<string, string | string[]> = {}
  for (const key of Object.keys(draft.query)) {
    const value = (draft.query as Record<string, unknown>)[key]
    query[key] = Array.isArray(value) ? value.map((v) => wellFormed(String(v))) : wellFormed(String(value))
  }
  return { method: target.method, url: path, headers, payload, query: Object.keys(query).length ? query : undefined }
}

function decodedParams(draft: Draft): Record<string, string> | 'bad-url' {
  const out: Record<string, string> = {}
  for (const [name, s] of Object.entries(draft.params)) {
    if ('raw' in s) {
      try {
        out[name] = decodeURIComponent(s.raw)
      } catch {
        return 'bad-url'
      }
    } else out[name] = s.decoded
  }
  return out
}

/** Fastify's JSON parser refuses these (secure-json-parse: onProtoPoisoning and onConstructorPoisoning are 'error'). */
function poisoned(value: unknown): boolean {
  const stack: unknown[] = [value]
  while (stack.length) {
    const v = stack.pop()
    if (v === null || typeof v !== 'object') continue
    if (Object.prototype.hasOwnProperty.call(v, '__proto__')) return true
    const ctor = (v as Record<string, unknown>).constructor
    if (
      Object.prototype.hasOwnProperty.call(v, 'constructor') &&
      ctor !== null &&
      typeof ctor === 'object' &&
      Object.prototype.hasOwnProperty.call(ctor, 'prototype')
    )
      return true
    for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key])
  }
  return false
}

/** Nesting depth of a parsed value (`{}` is 1), counted without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }]
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue
    deepest = Math.max(deepest, next.depth)
    for (const child of Object.values(next.value)) stack.push({ value: child, depth: next.depth + 1 })
  }
  return deepest
}

const refuse = (status: number | undefined, why: string): Verdict => ({ invalid: true, status, why })

/**
 * Whether the app must refuse the request, and with which status when that is determined, in
 * the order Fastify works: routing (URL decoding, parameter length), the auth hook, the
 * content-type parser and body limit, JSON parsing (nesting past JSON_LIMITS.documentDepth is
 * refused there, before parsing), then schema validation.
 */
export function classify(draft: Draft, built: BuiltRequest, ctx: FuzzContext): Verdict {
  const { target } = draft
  const params = decodedParams(draft)
  if (params === 'bad-url') return refuse(400, 'bad percent-encoding in the path')
  if (Object.entries(params).some(([name, v]) => name !== '*' && v.length > 4096))
    return refuse(414, 'path parameter over maxParamLength')
  if (Object.entries(params).some(([name, v]) => name !== '*' && v === ''))
    return refuse(undefined, 'empty path segment')
  const auth = draft.auth
  if (target.access === 'admin' && auth.kind === 'admin-key' && auth.value !== ctx.adminKey)
    return refuse(401, 'bad admin key')
  if (target.access === 'client' && (auth.kind === 'none' || auth.kind === 'authorization'))
    return refuse(401, 'no valid VC API token')
  if (target.access === 'user') {
    if (auth.kind === 'none' || auth.kind === 'authorization') return refuse(401, 'no valid token')
    const bound = (value: string): Verdict | undefined => {
      try {
        return normalizeDid(value) === ctx.ownerDid ? undefined : refuse(403, 'DID is not the token DID')
      } catch {
        return refuse(400, 'malformed DID')
      }
    }
    const pathDid = params.did !== undefined ? bound(params.did) : undefined
    if (pathDid) return pathDid
    if (auth.kind === 'x-user-did') {
      const header = bound(auth.value)
      if (header) return header
    }
  }
  let body: unknown
  const b = draft.body
  if (target.takesBody && b.kind === 'multipart') {
    if (b.invalid) return refuse(undefined, b.label)
    if (!target.multipart) return { invalid: false }
  } else if (target.takesBody && b.kind !== 'none' && BARE_POST_ROUTES.has(target.url)) {
    // Any media type will do; a header that is none (empty, no type/subtype) is still refused by Fastify.
    const contentType = built.headers['content-type']
    const mediaType = /^\s*[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+\s*(;.*)?$/
    if (contentType !== undefined && !mediaType.test(contentType)) return refuse(415, 'not a media type')
    if (Buffer.byteLength(built.payload ?? '') > target.bodyLimit) return refuse(413, 'body over the limit')
  } else if (target.takesBody && b.kind !== 'none') {
    const contentType = built.headers['content-type']
    const payload = built.payload ?? ''
    const bytes = Buffer.byteLength(payload)
    if (contentType === undefined && bytes > 0) return refuse(415, 'body without a content type')
    // The OAuth token endpoints (RFC 6749 §4.4.2, OID4VCI's) and the OpenID4VP response endpoint (OID4VP 1.0
    // §8.2) also parse form bodies: refused there by their own checks.
    if (
      contentType !== undefined &&
      FORM_ROUTES.has(target.url) &&
      /^\s*application\/x-www-form-urlencoded\s*(;.*)?$/i.test(contentType)
    )
      return bytes > target.bodyLimit
        ? refuse(413, 'body over the limit')
        : refuse(undefined, 'a form body without valid client credentials or code, or answering no OpenID4VP request')
    if (contentType !== undefined && !/^\s*application\/json\s*(;.*)?$/i.test(contentType))
      return refuse(415, 'unsupported content type')
    if (contentType !== undefined) {
      if (bytes > target.bodyLimit) return refuse(413, 'body over the limit')
      if (bytes === 0) return refuse(400, 'empty JSON body')
      // secure-json-parse, Fastify's parser, drops a leading byte order mark (RFC 8259 §8.1 allows it).
      const text = (typeof payload === 'string' ? payload : payload.toString('utf8')).replace(/^\ufeff/, '')
      try {
        body = JSON.parse(text)
      } catch {
        return refuse(400, 'malformed JSON')
      }
      if (depthOf(body) > JSON_LIMITS.documentDepth) return refuse(400, 'JSON nested past the body limit')
      if (poisoned(body)) return refuse(400, 'prototype poisoning')
      if (target.multipart) return refuse(undefined, 'JSON to a multipart route')
    }
  }
  if (!target.check.params(params)) return refuse(400, 'path parameters fail the schema')
  if (target.takesBody && !target.multipart && !target.check.body(body)) return refuse(400, 'body fails the schema')
  if (!target.check.query(built.query ?? {})) return refuse(400, 'querystring fails the schema')
  return { invalid: false }
}
