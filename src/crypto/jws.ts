import type { KeyObject } from 'node:crypto'
import { JSON_LIMITS, nestingPastLimit, pathText } from '../json-limits.js'
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

export interface DecodedJws {
  header: Record<string, unknown>
  payload: Record<string, unknown>
}

/**
 * Header and payload of a compact JWS, unverified (for display and routing only). Undefined when
 * they are not JSON objects, or when they nest deeper than JSON_LIMITS.documentDepth
 * (jwsNestingProblem says where): every JWS the service reads comes through here, so no deeper
 * value from signed material reaches a serializer or the database.
 */
export function decodeCompactJws(jws: string): DecodedJws | undefined {
  const texts = jsonTexts(jws)
  if (!texts || jwsNestingProblem(jws, texts)) return undefined
  try {
    const header: unknown = JSON.parse(texts[0])
    const payload: unknown = JSON.parse(texts[1])
    return isObject(header) && isObject(payload) ? { header, payload } : undefined
  } catch {
    return undefined
  }
}

/** Why a JWS is too deep to read, e.g. `its payload nests deeper than 64 levels (at vc/credentialSubject/…)`, or undefined. */
export function jwsNestingProblem(jws: string, texts = jsonTexts(jws)): string | undefined {
  for (const [index, part] of ['header', 'payload'].entries()) {
    const path = texts && nestingPastLimit(texts[index]!, JSON_LIMITS.documentDepth)
    if (path) return `its ${part} nests deeper than ${JSON_LIMITS.documentDepth} levels (at ${pathText(path).slice(1) || 'the top'})`
  }
  return undefined
}

function jsonTexts(jws: string): [string, string] | undefined {
  const parts = jws.split('.')
  if (parts.length !== 3) return undefined
  return [Buffer.from(parts[0]!, 'base64url').toString('utf8'), Buffer.from(parts[1]!, 'base64url').toString('utf8')]
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url')
