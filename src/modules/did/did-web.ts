/**
 * did:web resolution (W3C CCG did:web Method Specification, §3.2 "Read (Resolve)"): the DID
 * names an HTTPS URL whose JSON is the DID document, accepted only if its `id` is the DID.
 */
import type { HttpGet } from '../../adapters/http-out/guarded-fetch.js'
import { isIP } from 'node:net'
import {
  AppError,
  DependencyUnavailableError,
  NotFoundError,
  UnprocessableError,
  ValidationError,
} from '../../errors.js'
import type { DidDocument } from './did-document.js'

export interface DidWebOptions {
  httpGet: HttpGet
  /** Local development and tests only: fetch over http:// and allow IP-literal hosts. */
  allowHttp?: boolean
  /** Cap on the document size, also enforced here for injected fetchers. */
  maxBytes?: number
}

const DEFAULT_MAX_BYTES = 256 * 1024
const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/
const RELATIONSHIPS = [
  'verificationMethod',
  'authentication',
  'assertionMethod',
  'keyAgreement',
  'capabilityInvocation',
  'capabilityDelegation',
  'service',
] as const

/**
 * did:web spec §3.2 steps 1-5: colons become slashes, a percent-encoded colon in the host is
 * a port, no path means `/.well-known`, and `/did.json` is appended.
 * `did:web:example.com` -> `https://example.com/.well-known/did.json`,
 * `did:web:example.com%3A8443:user:alice` -> `https://example.com:8443/user/alice/did.json`.
 */
export function didWebUrl(did: string, allowHttp = false): string {
  const prefix = 'did:web:'
  if (!did.startsWith(prefix)) throw new ValidationError(`Not a did:web: ${did}`)
  const [hostPart = '', ...path] = did.slice(prefix.length).split(':')
  const [host = '', port, extra] = hostPart.replace(/%3A/gi, ':').split(':')
  const badHost = (why: string): ValidationError => new ValidationError(`Invalid did:web host "${hostPart}": ${why}`)
  if (extra !== undefined) throw badHost('more than one port separator')
  if (port !== undefined && !/^[0-9]{1,5}$/.test(port)) throw badHost('the port is not a number')
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) throw badHost('the port is out of range')
  if (isIP(host) !== 0) {
    // §3.1: the method-specific id MUST NOT include IP addresses (certificates name domains).
    if (!allowHttp) throw badHost('IP addresses are not allowed in did:web')
  } else if (host.length > 253 || !host.split('.').every((label) => LABEL.test(label))) {
    throw badHost('not a domain name (internationalized names must be in punycode)')
  }
  for (const segment of path) {
    // Empty and dot segments (also as %2e, WHATWG URL §4.1) would be rewritten by URL parsing.
    if (segment === '' || /^(?:\.|%2e){1,2}$/i.test(segment)) {
      throw new ValidationError(`Invalid did:web path segment "${segment}" in ${did}`)
    }
  }
  const origin = `${allowHttp ? 'http' : 'https'}://${host}${port === undefined ? '' : `:${port}`}`
  const location = path.length === 0 ? '/.well-known' : `/${path.join('/')}`
  return new URL(`${location}/did.json`, origin).href
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
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body))
  } catch {
    throw invalid(did, url, 'not UTF-8 JSON')
  }
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
