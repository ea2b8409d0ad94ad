/**
 * The outgoing half of a domain check: fetching what the domain publishes (HTTPS well-known
 * file, DNS TXT record, DID configuration) and turning every failure into an answer a client can
 * act on. The URL's host is user-chosen, so fetches go through the guarded HttpGet (timeouts,
 * size cap, redirects re-checked, private addresses refused in the socket's lookup) and no
 * message ever names an address the domain resolved or redirected to.
 *
 * Statuses (src/errors.ts): what the domain serves is wrong or missing → 422 (Unprocessable, with
 * `details.reason`); the domain or DNS could not be reached in time → 503 (DependencyUnavailable:
 * the project's "upstream unavailable" answer, standing in for 502/504).
 */
import type { DnsResolver } from '../../adapters/dns.js'
import type { HttpGet, HttpResponse } from '../../adapters/http-out/guarded-fetch.js'
import { AppError, DependencyUnavailableError, UnprocessableError, ValidationError } from '../../errors.js'
import type { DomainProofMethod } from './domain.table.js'

export type ProofFailureReason =
  | 'not_found'
  | 'http_status'
  | 'token_mismatch'
  | 'no_record'
  | 'too_large'
  | 'private_address'
  | 'insecure_redirect'
  | 'too_many_redirects'
  | 'invalid_redirect'
  | 'invalid_configuration'
  | 'did_not_linked'
  | 'invalid_linkage_credential'

/** What the domain published does not prove control (422, `details: {method, reason}`). */
export function proofFailure(
  method: DomainProofMethod,
  reason: ProofFailureReason,
  message: string,
): UnprocessableError {
  return new UnprocessableError(message, { details: { method, reason } })
}

export interface FetchOptions {
  httpGet: HttpGet
  method: DomainProofMethod
  /** The domain, for messages: the only host name they mention. */
  domain: string
  url: string
  accept: string
  /** Enforced here too, whatever the injected HttpGet's own cap. */
  maxBytes: number
}

/** GET of a proof document: 200 with a body within the cap, or a translated error. */
export async function fetchProofDocument(options: FetchOptions): Promise<HttpResponse> {
  const { method, domain, url } = options
  let response: HttpResponse
  try {
    response = await options.httpGet(url, { accept: options.accept })
  } catch (error) {
    throw translateFetchError(error, options)
  }
  if (response.status === 404 || response.status === 410) {
    throw proofFailure(method, 'not_found', `Nothing is published at ${url} (HTTP ${response.status})`)
  }
  if (response.status >= 500) {
    throw new DependencyUnavailableError(`${domain} answered HTTP ${response.status} for ${url}; try again later`)
  }
  if (response.status !== 200) {
    throw proofFailure(method, 'http_status', `${url} answered HTTP ${response.status}, expected 200`)
  }
  if (response.body.length > options.maxBytes) {
    throw proofFailure(method, 'too_large', `The document at ${url} is larger than ${options.maxBytes} bytes`)
  }
  return response
}

/**
 * The guarded fetch reports its refusals and failures as ValidationError / DependencyUnavailable
 * with messages meant for logs (they may name the refused address). Each is re-worded here from
 * the facts the client already knows: the domain and the URL it asked about.
 */
function translateFetchError(error: unknown, options: FetchOptions): AppError {
  const { method, domain, url } = options
  const text = error instanceof Error ? error.message : ''
  if (error instanceof ValidationError) {
    if (/refused/.test(text) && /(resolves to a|is a) .*address/.test(text)) {
      return proofFailure(
        method,
        'private_address',
        `Fetching ${url} led to a private or reserved network address (directly or by a redirect); refused`,
      )
    }
    if (/redirects from https to plain http/.test(text)) {
      return proofFailure(method, 'insecure_redirect', `${url} redirects from https to plain http; refused`)
    }
    return proofFailure(method, 'invalid_redirect', `${url} redirects to a location that cannot be fetched`)
  }
  if (error instanceof DependencyUnavailableError) {
    const timedOut = /did not answer within (\d+) ms/.exec(text)
    if (timedOut) return new DependencyUnavailableError(`${domain} did not answer within ${timedOut[1]} ms (${url})`)
    const tooLarge = /larger than (\d+) bytes/.exec(text)
    if (tooLarge) return proofFailure(method, 'too_large', `The document at ${url} is larger than ${tooLarge[1]} bytes`)
    if (/more than \d+ redirects/.test(text))
      return proofFailure(method, 'too_many_redirects', `${url} redirects too many times`)
    const code = /unreachable \(([A-Z0-9_]+)\)/.exec(text)?.[1]
    return new DependencyUnavailableError(
      `${domain} is unreachable${code ? ` (${code})` : ''}; check that it serves HTTPS`,
    )
  }
  if (error instanceof AppError) return error
  return new DependencyUnavailableError(`${url} could not be fetched`, { cause: error })
}

const WELL_KNOWN_MAX_BYTES = 64 * 1024

/** (a) The token on a line of its own in the well-known text file. */
export async function checkWellKnownToken(options: {
  httpGet: HttpGet
  domain: string
  url: string
  token: string
}): Promise<void> {
  const response = await fetchProofDocument({
    ...options,
    method: 'well_known',
    accept: 'text/plain',
    maxBytes: WELL_KNOWN_MAX_BYTES,
  })
  const lines = new TextDecoder()
    .decode(response.body)
    .split(/\r?\n/)
    .map((line) => line.trim())
  if (!lines.includes(options.token)) {
    throw proofFailure(
      'well_known',
      'token_mismatch',
      `${options.url} does not hold the challenge token on a line of its own`,
    )
  }
}

/** Records and characters looked at in a TXT answer; a name with more is not ours to parse. */
const MAX_TXT_RECORDS = 100
const NO_RECORD_CODES = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN'])

/** (b) A TXT record at `_credential-service-challenge.<domain>` whose value is the token. */
export async function checkDnsTxtToken(options: {
  dns: DnsResolver
  name: string
  token: string
  timeoutMs: number
}): Promise<void> {
  const { name, token } = options
  let records: string[][]
  try {
    records = await withTimeout(options.dns.resolveTxt(name), options.timeoutMs)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (error instanceof DnsTimeout || code === 'ETIMEOUT') {
      throw new DependencyUnavailableError(`The DNS lookup of ${name} did not answer within ${options.timeoutMs} ms`)
    }
    if (typeof code === 'string' && NO_RECORD_CODES.has(code)) {
      throw proofFailure('dns_txt', 'no_record', `There is no TXT record at ${name}`)
    }
    throw new DependencyUnavailableError(
      `The DNS lookup of ${name} failed${typeof code === 'string' && /^[A-Z_]+$/.test(code) ? ` (${code})` : ''}`,
    )
  }
  // RFC 7208 §3.3 style: a record's character-strings are one value, concatenated.
  const values = records.slice(0, MAX_TXT_RECORDS).map((chunks) => chunks.join('').trim())
  if (!values.includes(token)) {
    throw proofFailure('dns_txt', 'token_mismatch', `No TXT record at ${name} holds the challenge token`)
  }
}

class DnsTimeout extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DnsTimeout()), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
