import { gunzipSync, gzipSync } from 'node:zlib'

/**
 * W3C Bitstring Status List v1.0 §3.2: the list is GZIP-compressed, then base64url-encoded
 * (no padding) with the multibase prefix `u`. Bit 0 is the most significant bit of the first
 * byte ("the leftmost bit"), so index i lives in byte ⌊i/8⌋ under mask 0x80 >> (i mod 8).
 */
export function encodeStatusList(bits: Uint8Array): string {
  return `u${gzipSync(bits).toString('base64url')}`
}

export function decodeStatusList(encoded: string): Uint8Array {
  if (!encoded.startsWith('u')) throw new Error('encodedList must be multibase base64url (prefix "u")')
  return new Uint8Array(gunzipSync(Buffer.from(encoded.slice(1), 'base64url')))
}

export function statusBit(bits: Uint8Array, index: number): boolean {
  const byte = bits[index >> 3]
  if (byte === undefined || index < 0) throw new RangeError(`status index ${index} is outside the list`)
  return (byte & (0x80 >> (index & 7))) !== 0
}

/**
 * PostgreSQL's set_bit(bytea, n) numbers bits from the least significant bit of each byte;
 * this maps a status-list index to that numbering.
 */
export function postgresBitNumber(index: number): number {
  return (index & ~7) + (7 - (index & 7))
}
