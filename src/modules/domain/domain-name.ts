/**
 * What a "domain" is for this module: a public DNS host name, in one canonical ASCII form, so
 * `Bücher.Example.COM.` and `xn--bcher-kva.example.com` are one record. Checked before any
 * outgoing request is made for it: the private-address guard protects the socket, these rules
 * keep obviously non-public names (IP literals, single labels, special-use names) out entirely.
 */
import { isIP } from 'node:net'
import { domainToASCII, domainToUnicode } from 'node:url'
import { ValidationError } from '../../errors.js'

/** RFC 1035 §2.3.4 (253 characters in presentation form, without the trailing dot). */
const MAX_DOMAIN_LENGTH = 253
/** LDH labels (RFC 1123 §2.1, RFC 5890 §2.3.1): letters, digits, hyphens, not at either end. */
const LDH_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/
/**
 * Special-use names that never name a public host: RFC 6761 §6 (localhost, invalid, test,
 * example), RFC 6762 (local, mDNS), RFC 7686 (onion), RFC 8375 (home.arpa; all of .arpa is
 * infrastructure), and the ICANN-reserved private-use .internal.
 */
const SPECIAL_USE_TLDS = new Set(['localhost', 'invalid', 'test', 'example', 'local', 'onion', 'arpa', 'internal'])

/**
 * The canonical form of a user-supplied domain: IDNA (UTS #46) to punycode, lower case, one
 * trailing dot dropped. Refuses (ValidationError, 400) schemes, paths, ports, user info, IP
 * literals in any notation, single-label and special-use names, and over-long names or labels.
 */
export function normalizeDomain(input: string): string {
  const raw = input.trim()
  const refuse = (why: string): never => {
    throw new ValidationError(`Invalid domain "${preview(raw)}": ${why}`, { details: { field: 'domain' } })
  }
  if (raw === '') refuse('it is empty')
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) refuse('give the bare host name, without a scheme such as https://')
  if (/[/?#\\]/.test(raw)) refuse('give the bare host name, without a path, query or fragment')
  if (raw.includes('@')) refuse('user information is not allowed')
  if (raw.startsWith('[') || isIP(raw) !== 0) refuse('IP addresses are not allowed, only domain names')
  if (raw.includes(':')) refuse('ports are not allowed')
  if (/\s/.test(raw)) refuse('spaces are not allowed')
  const withoutDot = raw.endsWith('.') ? raw.slice(0, -1) : raw
  const ascii = domainToASCII(withoutDot)
  if (ascii === '') refuse('not a valid domain name (IDNA, UTS #46)')
  // The WHATWG host parser reads numeric forms (0x7f.1, 2130706433, 127.1) as IPv4 addresses.
  if (isIP(ascii) !== 0 || isIP(hostOfUrl(ascii)) !== 0) refuse('IP addresses are not allowed, only domain names')
  if (ascii.length > MAX_DOMAIN_LENGTH) refuse(`longer than ${MAX_DOMAIN_LENGTH} characters`)
  const labels = ascii.split('.')
  if (labels.length < 2) refuse('single-label names are not public domains')
  for (const label of labels) {
    if (label.length === 0) refuse('empty label')
    if (label.length > 63) refuse('a label is longer than 63 characters')
    if (!LDH_LABEL.test(label)) refuse(`label "${preview(label)}" may hold only letters, digits and inner hyphens`)
    // Node 24's URL parser passes an undecodable A-label through unchanged (Node 20 refused it).
    if (label.startsWith('xn--') && !isValidALabel(label)) refuse('not a valid domain name (IDNA, UTS #46)')
  }
  const tld = labels.at(-1)!
  if (/^[0-9]+$/.test(tld)) refuse('the top-level label cannot be all digits')
  if (SPECIAL_USE_TLDS.has(tld) || ascii === 'localhost') refuse(`.${tld} is a special-use name, never a public domain`)
  return ascii
}

/** An A-label (RFC 5890 §2.3.2.1) is valid when it decodes and encodes back to itself. */
function isValidALabel(label: string): boolean {
  const unicode = domainToUnicode(label)
  return unicode !== '' && unicode !== label && domainToASCII(unicode) === label
}

/** The Unicode form of a canonical domain, for display only. */
export function displayDomain(ascii: string): string {
  return domainToUnicode(ascii) || ascii
}

/** Name of the well-known file holding challenge tokens (one per line). */
export const WELL_KNOWN_FILE = 'credential-service-verification.txt'
/** Prefix label of the DNS TXT record holding a challenge token. */
export const TXT_LABEL = '_credential-service-challenge'

/** Where each proof of control is looked for (the domain in canonical form). */
export function proofLocations(domain: string) {
  const origin = `https://${domain}`
  return {
    origin,
    wellKnownUrl: `${origin}/.well-known/${WELL_KNOWN_FILE}`,
    txtName: `${TXT_LABEL}.${domain}`,
    // DIF Well Known DID Configuration v1.0, "DID Configuration Resource Location".
    didConfigurationUrl: `${origin}/.well-known/did-configuration.json`,
  }
}

function hostOfUrl(ascii: string): string {
  try {
    return new URL(`https://${ascii}/`).hostname
  } catch {
    return ascii
  }
}

function preview(value: string): string {
  return value.length > 80 ? `${value.slice(0, 77)}...` : value
}
