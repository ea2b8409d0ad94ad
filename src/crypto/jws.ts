import type { KeyObject } from 'node:crypto'
import { ed25519SignAsync } from './ed25519.js'

/**
 * Compact JWS (RFC 7515 §7.1) with EdDSA over Ed25519 (RFC 8037 §3.1). Built by hand rather than
 * with jose's SignJWT because issuance signs on the hot path: this skips jose's key checks and
 * runs the signature on libuv's thread pool. Verification stays with jose (tests verify
 * independently of this code).
 */
export async function signCompactEdDsa(header: Record<string, unknown>, payload: Record<string, unknown>, privateKey: KeyObject): Promise<string> {
  const signingInput = `${b64(JSON.stringify({ ...header, alg: 'EdDSA' }))}.${b64(JSON.stringify(payload))}`
  const signature = await ed25519SignAsync(privateKey, Buffer.from(signingInput, 'ascii'))
  return `${signingInput}.${Buffer.from(signature).toString('base64url')}`
}

/** Header and payload of a compact JWS, unverified (for display and routing only). */
export function decodeCompactJws(jws: string): { header: Record<string, unknown>; payload: Record<string, unknown> } | undefined {
  const parts = jws.split('.')
  if (parts.length !== 3) return undefined
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'))
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'))
    if (typeof header !== 'object' || header === null || typeof payload !== 'object' || payload === null) return undefined
    return { header, payload }
  } catch {
    return undefined
  }
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url')
