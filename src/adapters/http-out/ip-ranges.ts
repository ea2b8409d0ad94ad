/**
 * Which IP addresses an outgoing request may connect to when private targets are refused
 * (SSRF guard). Ranges come from the IANA IPv4/IPv6 Special-Purpose Address Registries
 * (RFC 6890 and its updates); anything not globally reachable is refused, with a reason.
 */
import { isIPv4, isIPv6 } from 'node:net'

type Range<V> = { base: V; prefix: number; reason: string }

const V4_RANGES: Range<number>[] = [
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
].map(([cidr, reason]) => v4Range(cidr as string, reason as string))

const V6_RANGES: Range<bigint>[] = [
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
].map(([cidr, reason]) => v6Range(cidr as string, reason as string))

/** Prefixes whose addresses embed an IPv4 address that is what the packet finally reaches. */
const V6_EMBEDDING: { range: Range<bigint>; shift: bigint; label: string }[] = [
  { range: v6Range('::ffff:0:0/96', ''), shift: 0n, label: 'IPv4-mapped' }, // RFC 4291 §2.5.5.2
  { range: v6Range('64:ff9b::/96', ''), shift: 0n, label: 'NAT64' }, // RFC 6052
  { range: v6Range('2002::/16', ''), shift: 80n, label: '6to4' }, // RFC 3056: 2002:V4ADDR::/48
]

const GLOBAL_UNICAST_V6 = v6Range('2000::/3', '')

/**
 * Why `ip` must not be connected to, or undefined when it is a global unicast address.
 * Unparseable input is refused too, so a caller can never skip the check by accident.
 */
export function refusedAddressReason(ip: string): string | undefined {
  const v4 = parseIpv4(ip)
  if (v4 !== undefined) return v4Reason(v4)
  const v6 = parseIpv6(ip)
  if (v6 === undefined) return 'not an IP address'
  for (const { range, shift, label } of V6_EMBEDDING) {
    if (inRange(v6, range, 128)) {
      const reason = v4Reason(Number((v6 >> shift) & 0xffffffffn))
      return reason === undefined ? undefined : `${label} ${reason}`
    }
  }
  for (const range of V6_RANGES) if (inRange(v6, range, 128)) return range.reason
  if (!inRange(v6, GLOBAL_UNICAST_V6, 128)) return 'reserved, outside global unicast 2000::/3 (RFC 4291)'
  return undefined
}

export function isPublicAddress(ip: string): boolean {
  return refusedAddressReason(ip) === undefined
}

function v4Reason(value: number): string | undefined {
  return V4_RANGES.find((range) => inRange(value, range, 32))?.reason
}

function inRange<V extends number | bigint>(value: V, range: Range<V>, bits: number): boolean {
  const drop = bits - range.prefix
  if (typeof value === 'bigint') {
    return value >> BigInt(drop) === (range.base as bigint) >> BigInt(drop)
  }
  // Math.floor avoids the 32-bit sign trap of `>>` on values >= 2^31.
  const div = 2 ** drop
  return Math.floor((value as number) / div) === Math.floor((range.base as number) / div)
}

/** Dotted-quad IPv4 to an unsigned 32-bit number; undefined if not strictly IPv4. */
export function parseIpv4(ip: string): number | undefined {
  if (!isIPv4(ip)) return undefined
  return ip.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0)
}

/** IPv6 text (with optional zone id and dotted IPv4 tail) to a 128-bit bigint. */
export function parseIpv6(ip: string): bigint | undefined {
  let text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
  const zone = text.indexOf('%')
  if (zone >= 0) text = text.slice(0, zone)
  if (!isIPv6(text)) return undefined
  const lastColon = text.lastIndexOf(':')
  const tail = text.slice(lastColon + 1)
  if (tail.includes('.')) {
    const v4 = parseIpv4(tail)
    if (v4 === undefined) return undefined
    text = `${text.slice(0, lastColon + 1)}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`
  }
  const [head = '', rest] = text.split('::')
  const headGroups = head === '' ? [] : head.split(':')
  const tailGroups = rest === undefined || rest === '' ? [] : rest.split(':')
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - tailGroups.length
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...tailGroups]
  if (groups.length !== 8) return undefined
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n)
}

function v4Range(cidr: string, reason: string): Range<number> {
  const [address = '', prefix = ''] = cidr.split('/')
  const base = parseIpv4(address)
  if (base === undefined) throw new Error(`bad IPv4 range ${cidr}`)
  return { base, prefix: Number(prefix), reason }
}

function v6Range(cidr: string, reason: string): Range<bigint> {
  const [address = '', prefix = ''] = cidr.split('/')
  const base = parseIpv6(address)
  if (base === undefined) throw new Error(`bad IPv6 range ${cidr}`)
  return { base, prefix: Number(prefix), reason }
}
