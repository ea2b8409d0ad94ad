/** Byte/text encodings used across the service (base64url per RFC 4648 §5). */
export const toBase64Url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url')
export const toBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64')

/**
 * Strict decode of base64 or base64url (padding optional). Returns undefined for anything else,
 * because Buffer.from(..., 'base64') silently skips invalid characters.
 */
export function decodeBase64Any(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/\-_]*={0,2}$/.test(text) || (/[+/]/.test(text) && /[-_]/.test(text))) return undefined
  const normalized = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
  if (normalized.length % 4 === 1) return undefined
  return new Uint8Array(Buffer.from(normalized, 'base64'))
}

/** The parts one after another, in a new plain Uint8Array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.byteLength
  }
  return out
}
