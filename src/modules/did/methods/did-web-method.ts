/**
 * did:web (W3C CCG did:web Method Specification): the DID names an HTTPS URL (§3.2 "Read
 * (Resolve)") whose JSON is the DID document, accepted only if its `id` is the DID.
 */
import { isIP } from 'node:net'
import type { HttpGet } from '../../../adapters/http-out/guarded-fetch.js'
import {
  AppError,
  DependencyUnavailableError,
  NotFoundError,
  UnprocessableError,
  ValidationError,
} from '../../../errors.js'
import { JSON_LIMITS, nestingPastLimit } from '../../../json-limits.js'
import type { DidDocument } from '../did-document.js'
import { ed25519AuthenticationKeys } from '../verification-keys.js'
import type { DidMethod } from './did-method.js'

/**
 * did:web: its id names one URL (parseDidWeb, below), whose document is fetched from its host and
 * cached for `cacheTtlMs` (a login must not cost a fetch); concurrent resolutions of one DID share one
 * fetch, and copies leave the cache, so no caller alters the next one's document. It signs in
 * with the Ed25519 keys its document lists under `authentication`.
 */
export const didWebMethod: DidMethod = {
  name: 'web',
  selfCertifying: false,
  checkSyntax: (did) => void parseDidWeb(did),
  resolver(deps) {
    const cache = new Map<string, { expires: number; doc: DidDocument }>()
    const inFlight = new Map<string, Promise<DidDocument>>()

    function remember(did: string, doc: DidDocument): void {
      if (cache.size >= deps.cacheMaxEntries) {
        const time = deps.now()
        for (const [key, entry] of cache) if (entry.expires <= time) cache.delete(key)
        // Still full: drop the oldest insertion (Map iterates in insertion order).
        const oldest = cache.keys().next()
        if (cache.size >= deps.cacheMaxEntries && !oldest.done) cache.delete(oldest.value)
      }
      cache.set(did, { expires: deps.now() + deps.cacheTtlMs, doc })
    }

    return {
      async resolve(did, resolution) {
        const hit = cache.get(did)
        if (hit && hit.expires > deps.now() && !resolution.refetch) return structuredClone(hit.doc)
        if (hit) cache.delete(did)
        let pending = inFlight.get(did)
        if (!pending) {
          pending = resolveDidWeb(did, { httpGet: deps.httpGet, allowHttp: deps.allowHttp })
            .then((doc) => {
              remember(did, doc)
              return doc
            })
            .finally(() => inFlight.delete(did))
          inFlight.set(did, pending)
        }
        return structuredClone(await pending)
      },
    }
  },
  signIn: {
    origin: 'did-web',
    keys: async (_did, document) => ed25519AuthenticationKeys(await document()),
  },
  registrationRefusal: 'did:web resolves through its own domain',
}

export interface DidWebOptions {
  httpGet: HttpGet
  /** Local development and tests only: fetch over http:// and allow IP-literal hosts. */
  allowHttp?: boolean
  /** Cap on the document size, also enforced here for injected fetchers. */
  maxBytes?: number
}

const DEFAULT_MAX_BYTES = 256 * 1024
const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/
/** DID Core §3.1 idchar without pct-encoded: a path segment's escape could hide a `/` or a dot segment. */
const SEGMENT = /^[A-Za-z0-9._-]+$/
/** The WHATWG URL host parser reads a host whose last label is a number as an IPv4 address (`2130706433`). */
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/i
const RELATIONSHIPS = [
  'verificationMethod',
  'authentication',
  'assertionMethod',
  'keyAgreement',
  'capabilityInvocation',
  'capabilityDelegation',
  'service',
] as const

/** Where a did:web's document lives, read from the DID alone. */
export interface DidWebLocation {
  host: string
  port: number | undefined
  /** Path segments; empty: the document is under `/.well-known`. */
  path: string[]
}

/**
 * The one reading of a did:web's method-specific id (did:web spec §3.2 steps 1-3): colons
 * separate the host from path segments, and the host's only percent-encoding is the port's
 * colon, `%3A`, decoded exactly once. Anything that would make the URL name another document
 * is refused: other escapes (`%253A`, `%2F`, `%2E`), dot and empty segments, a port that is not
 * 1-65535, and hosts the URL parser would rewrite (numeric IPv4 forms).
 */
export function parseDidWeb(did: string): DidWebLocation {
  const prefix = 'did:web:'
  if (!did.startsWith(prefix)) throw new ValidationError(`Not a did:web: ${did}`)
  const [hostPart = '', ...path] = did.slice(prefix.length).split(':')
  const badHost = (why: string): ValidationError => new ValidationError(`Invalid did:web host "${hostPart}": ${why}`)
  const [host = '', port, extra] = hostPart.split(/%3A/i)
  if (extra !== undefined) throw badHost('more than one port separator')
  if (hostPart.includes('%25')) throw badHost('it is percent-encoded more than once (%25)')
  if (`${host}${port ?? ''}`.includes('%'))
    throw badHost('its only percent-encoding can be %3A before the port (internationalized names must be in punycode)')
  if (port !== undefined && !/^[0-9]{1,5}$/.test(port)) throw badHost('the port is not a number')
  if (port !== undefined && (/^0/.test(port) || Number(port) > 65535))
    throw badHost('the port is out of range (1-65535, no leading zero)')
  if (isIP(host) !== 4) {
    const labels = host.split('.')
    if (host.length > 253 || !labels.every((label) => LABEL.test(label))) {
      throw badHost('not a domain name (internationalized names must be in punycode)')
    }
    if (NUMERIC_LABEL.test(labels.at(-1)!))
      throw badHost('a numeric last label makes it an IP address in another notation')
  }
  for (const segment of path) {
    // Dot segments would be removed by URL parsing (RFC 3986 §5.2.4), naming another path.
    if (!SEGMENT.test(segment) || segment === '.' || segment === '..') {
      throw new ValidationError(`Invalid did:web path segment "${segment}" in ${did}`)
    }
  }
  return { host, port: port === undefined ? undefined : Number(port), path }
}

/**
 * did:web spec §3.2 steps 4-6: no path means `/.well-known`, and `/did.json` is appended.
 * `did:web:example.com` -> `https://example.com/.well-known/did.json`,
 * `did:web:example.com%3A8443:user:alice` -> `https://example.com:8443/user/alice/did.json`.
 */
export function didWebUrl(did: string, allowHttp = false): string {
  const { host, port, path } = parseDidWeb(did)
  // §3.1: the method-specific id MUST NOT include IP addresses (certificates name domains).
  if (isIP(host) !== 0 && !allowHttp)
    throw new ValidationError(`Invalid did:web host "${host}": IP addresses are not allowed in did:web`)
  const origin = `${allowHttp ? 'http' : 'https'}://${host}${port === undefined ? '' : `:${port}`}`
  const location = path.length === 0 ? '/.well-known' : `/${path.join('/')}`
  return new URL(`${location}/did.json`, origin).href
}

/**
 * The did:web whose document lives at `<base>/<segments…>/did.json` (did:web spec §3.1 "Create",
 * the inverse of didWebUrl): the base URL's host with its port `%3A`-encoded, then its path and
 * the segments as colon-separated parts. No segments and no base path: the `/.well-known` DID.
 */
export function didWebForUrl(baseUrl: string, segments: string[] = []): string {
  const url = new URL(baseUrl)
  const path = [...url.pathname.split('/').filter(Boolean), ...segments]
  return ['did:web', url.port ? `${url.hostname}%3A${url.port}` : url.hostname, ...path].join(':')
}

export async function resolveDidWeb(did: string, options: DidWebOptions): Promise<DidDocument> {
  const url = didWebUrl(did, options.allowHttp ?? false)
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  let response
  try {
    response = await options.httpGet(url, {
      accept: 'application/did+json, application/did+ld+json;q=0.9, application/json;q=0.8',
    })
  } catch (error) {
    if (error instanceof AppError) throw error
    throw new DependencyUnavailableError(`Could not fetch the DID document of ${did}`, { cause: error })
  }
  if (response.status === 404 || response.status === 410) {
    throw new NotFoundError(`No DID document for ${did} at ${url} (HTTP ${response.status})`)
  }
  if (response.status !== 200) {
    throw new DependencyUnavailableError(`The DID document host for ${did} answered HTTP ${response.status}`)
  }
  if (response.body.byteLength > maxBytes) {
    throw invalid(did, url, `larger than ${maxBytes} bytes`)
  }
  return parseDocument(did, url, response.body)
}

function parseDocument(did: string, url: string, body: Uint8Array): DidDocument {
  let parsed: unknown
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body)
    parsed = JSON.parse(text)
  } catch {
    throw invalid(did, url, 'not UTF-8 JSON')
  }
  // Served back by GET /api/did/:did and walked by the checks: held to the document depth.
  if (nestingPastLimit(text, JSON_LIMITS.documentDepth))
    throw invalid(did, url, `nested deeper than ${JSON_LIMITS.documentDepth} levels`)
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalid(did, url, 'not a JSON object')
  }
  const doc = parsed as Record<string, unknown>
  // did:web spec §3.2 and DID Core §7.1.2: the document must be about the DID that was resolved.
  if (doc.id !== did) {
    throw invalid(did, url, `its id ${JSON.stringify(doc.id)} is not ${did}`)
  }
  for (const property of RELATIONSHIPS) {
    if (doc[property] !== undefined && !Array.isArray(doc[property])) {
      throw invalid(did, url, `${property} is not an array`)
    }
  }
  return doc as DidDocument
}

function invalid(did: string, url: string, why: string): UnprocessableError {
  return new UnprocessableError(`The DID document of ${did} at ${url} is invalid: ${why}`, {
    details: { error: 'invalidDidDocument' },
  })
}
