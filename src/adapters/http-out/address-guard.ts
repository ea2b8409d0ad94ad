/**
 * The SSRF guard shared by every outgoing request whose URL comes from users (guarded GET for
 * did:web and status lists, guarded POST for callbacks). The check runs inside the socket's
 * `lookup`, on the very addresses the socket then connects to, which closes the DNS-rebinding
 * gap of "resolve, check, then let the HTTP client resolve again". IP literals never reach
 * `lookup` (net.connect skips it), so they are checked before dialling.
 */
import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP, type LookupFunction } from 'node:net'
import { ValidationError } from '../../errors.js'
import { refusedAddressReason } from './ip-ranges.js'

export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

export interface AddressGuardOptions {
  allowPrivate: boolean
  /** DNS edge; default is the OS resolver (`dns.lookup`, all addresses). */
  resolveHost?: (hostname: string) => Promise<ResolvedAddress[]>
  /**
   * Address policy, returning why an address is refused. Default: the IANA special-purpose
   * ranges. Only tests replace it: every address a test can reach locally is non-public by
   * construction, so simulating a "public" hop means narrowing the policy, not the check.
   */
  addressPolicy?: (ip: string) => string | undefined
}

/** Raised inside `lookup`; callers translate it to a ValidationError once it leaves the socket. */
export class RefusedAddress extends Error {}

export interface AddressGuard {
  /** Why `ip` is refused under this guard's policy, or undefined. */
  refusal(ip: string): string | undefined
  /** For `http.request({ lookup })`: resolves, refuses forbidden addresses, returns the rest. */
  lookup: LookupFunction
  /** Throws a ValidationError when the URL's host is a refused IP literal. */
  checkLiteralHost(url: URL): void
}

export function createAddressGuard(options: AddressGuardOptions): AddressGuard {
  const policy = options.addressPolicy ?? refusedAddressReason
  const resolveHost = options.resolveHost ?? defaultResolve
  const refusal = (ip: string): string | undefined => (options.allowPrivate ? undefined : policy(ip))

  // Called by net.connect with the hostname of the URL; whatever it returns is dialled.
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolveHost(hostname).then(
      (found) => {
        const wanted = found.filter((a) => !lookupOptions.family || a.family === lookupOptions.family)
        const refused = wanted.map((a) => [a.address, refusal(a.address)] as const).find(([, why]) => why)
        if (refused) {
          // The address itself stays out of the message: it would map internal DNS for the caller.
          callback(new RefusedAddress(`${hostname} resolves to a ${refused[1]} address`), '')
        } else if (wanted.length === 0) {
          callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '')
        } else if (lookupOptions.all) {
          callback(null, wanted)
        } else {
          const first = wanted[0] as ResolvedAddress
          callback(null, first.address, first.family)
        }
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), ''),
    )
  }

  const checkLiteralHost = (url: URL): void => {
    const host = hostOf(url)
    if (isIP(host) === 0) return
    const why = refusal(host)
    if (why) throw new ValidationError(`${url.origin} is a ${why} address, refused`)
  }

  return { refusal, lookup, checkLiteralHost }
}

/** The URL's host without IPv6 brackets, as `http.request({ hostname })` wants it. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
}

/**
 * An http(s) URL without credentials, or a ValidationError. `what` names the action in the
 * message ("fetched", "called back").
 */
export function parseHttpUrl(input: string, base?: URL, what = 'fetched'): URL {
  let url: URL
  try {
    url = new URL(input, base)
  } catch {
    throw new ValidationError(`Not a valid URL: ${input}`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ValidationError(`Only http and https URLs can be ${what}, not ${url.protocol}`)
  }
  if (url.username || url.password) throw new ValidationError('URLs with credentials are refused')
  return url
}

async function defaultResolve(hostname: string): Promise<ResolvedAddress[]> {
  const found = await dnsLookup(hostname, { all: true, order: 'verbatim' })
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
}
