/**
 * Which IP addresses an outgoing request may connect to when private targets are refused
 * (SSRF guard). Ranges come from the IANA IPv4/IPv6 Special-Purpose Address Registries
 * (RFC 6890 and its updates); anything not globally reachable is refused, with a reason.
 * Matching is node:net's BlockList; each range keeps its own list so a refusal can say why.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net'

type Family = 'ipv4' | 'ipv6'
interface Range {
  list: BlockList
  reason: string
}

const V4_CIDRS: [string, string][] = [
  ['0.0.0.0/8', '"this network" (RFC 1122)'],
  ['10.0.0.0/8', 'private (RFC 1918)'],
  ['100.64.0.0/10', 'shared carrier-grade NAT space (RFC 6598)'],
  ['127.0.0.0/8', 'loopback (RFC 1122)'],
  ['169.254.0.0/16', 'link-local (RFC 3927)'],
  ['172.16.0.0/12', 'private (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments (RFC 6890)'],
  ['192.0.2.0/24', 'documentation (RFC 5737)'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast (RFC 7526)'],
  ['192.168.0.0/16', 'private (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking (RFC 2544)'],
  ['198.51.100.0/24', 'documentation (RFC 5737)'],
  ['203.0.113.0/24', 'documentation (RFC 5737)'],
  ['224.0.0.0/4', 'multicast (RFC 5771)'],
  ['240.0.0.0/4', 'reserved, including broadcast (RFC 1112, RFC 919)'],
]

// Order matters where ranges nest: ::1 and :: are reported before the ::/96 that holds them.
const V6_CIDRS: [string, string][] = [
  ['::/128', 'unspecified (RFC 4291)'],
  ['::1/128', 'loopback (RFC 4291)'],
  ['::/96', 'deprecated IPv4-compatible (RFC 4291 §2.5.5.1)'],
  ['64:ff9b:1::/48', 'local-use NAT64 (RFC 8215)'],
  ['100::/64', 'discard-only (RFC 6666)'],
  ['2001::/23', 'IETF protocol assignments, including Teredo (RFC 2928, RFC 4380)'],
  ['2001:db8::/32', 'documentation (RFC 3849)'],
  ['3fff::/20', 'documentation (RFC 9637)'],
  ['5f00::/16', 'SRv6 SIDs (RFC 9602)'],
  ['fc00::/7', 'unique-local, private (RFC 4193)'],
  ['fe80::/10', 'link-local (RFC 4291)'],
  ['fec0::/10', 'deprecated site-local (RFC 3879)'],
  ['ff00::/8', 'multicast (RFC 4291)'],
]

/**
 * Prefixes whose addresses embed an IPv4 address that is what the packet finally reaches: each
 * IPv4 range is also listed at its place inside them, and refused with the prefix's label.
 */
const V6_EMBEDDING: { prefix: Range; label: string; at: (v4Cidr: string) => string }[] = [
  { prefix: range('::ffff:0:0/96', 'ipv6', ''), label: 'IPv4-mapped', at: (cidr) => `::ffff:${shifted(cidr, 96)}` }, // RFC 4291 §2.5.5.2
  { prefix: range('64:ff9b::/96', 'ipv6', ''), label: 'NAT64', at: (cidr) => `64:ff9b::${shifted(cidr, 96)}` }, // RFC 6052
  { prefix: range('2002::/16', 'ipv6', ''), label: '6to4', at: (cidr) => sixToFour(cidr) }, // RFC 3056: 2002:V4ADDR::/48
]

const V4_RANGES = V4_CIDRS.map(([cidr, reason]) => range(cidr, 'ipv4', reason))
const V6_RANGES = V6_CIDRS.map(([cidr, reason]) => range(cidr, 'ipv6', reason))
const EMBEDDED = V6_EMBEDDING.map(({ prefix, label, at }) => ({
  prefix,
  ranges: V4_CIDRS.map(([cidr, reason]) => range(at(cidr), 'ipv6', `${label} ${reason}`)),
}))
const GLOBAL_UNICAST_V6 = range('2000::/3', 'ipv6', '')

/**
 * Why `ip` must not be connected to, or undefined when it is a global unicast address.
 * Unparseable input is refused too, so a caller can never skip the check by accident.
 */
export function refusedAddressReason(ip: string): string | undefined {
  if (isIPv4(ip)) return firstMatch(V4_RANGES, ip, 'ipv4')
  const v6 = bareIpv6(ip)
  if (v6 === undefined) return 'not an IP address'
  for (const { prefix, ranges } of EMBEDDED) {
    if (prefix.list.check(v6, 'ipv6')) return firstMatch(ranges, v6, 'ipv6')
  }
  const reason = firstMatch(V6_RANGES, v6, 'ipv6')
  if (reason !== undefined) return reason
  if (!GLOBAL_UNICAST_V6.list.check(v6, 'ipv6')) return 'reserved, outside global unicast 2000::/3 (RFC 4291)'
  return undefined
}

export function isPublicAddress(ip: string): boolean {
  return refusedAddressReason(ip) === undefined
}

function firstMatch(ranges: Range[], ip: string, family: Family): string | undefined {
  return ranges.find((r) => r.list.check(ip, family))?.reason
}

/** IPv6 text without brackets or zone id (BlockList takes neither), or undefined if not IPv6. */
function bareIpv6(ip: string): string | undefined {
  let text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
  const zone = text.indexOf('%')
  if (zone >= 0) text = text.slice(0, zone)
  return isIPv6(text) ? text : undefined
}

function range(cidr: string, family: Family, reason: string): Range {
  const [address = '', prefix = ''] = cidr.split('/')
  const list = new BlockList()
  list.addSubnet(address, Number(prefix), family)
  return { list, reason }
}

/** An IPv4 CIDR as the tail of a longer IPv6 prefix: `a.b.c.d/p` -> `a.b.c.d/(bits + p)`. */
function shifted(v4Cidr: string, bits: number): string {
  const [address = '', prefix = ''] = v4Cidr.split('/')
  return `${address}/${bits + Number(prefix)}`
}

/** An IPv4 CIDR inside 2002::/16: its four octets become the second and third hextets. */
function sixToFour(v4Cidr: string): string {
  const [address = '', prefix = ''] = v4Cidr.split('/')
  const [a = 0, b = 0, c = 0, d = 0] = address.split('.').map(Number)
  const hextet = (hi: number, lo: number) => ((hi << 8) | lo).toString(16)
  return `2002:${hextet(a, b)}:${hextet(c, d)}::/${16 + Number(prefix)}`
}
