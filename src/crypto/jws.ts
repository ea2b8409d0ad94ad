import type { KeyObject } from 'node:crypto'
import { CompactSign } from 'jose'
import { JSON_LIMITS, nestingPastLimit, pathText } from '../json-limits.js'

/** The JWS algorithms the service signs and verifies with (RFC 7518 §3.1; EdDSA per RFC 8037 §3.1). */
export const JWS_ALGORITHMS = ['EdDSA', 'ES256'] as const
export type JwsAlgorithm = (typeof JWS_ALGORITHMS)[number]

/**
 * The JWS algorithm a key signs with, or undefined when the service has none for it: the one
 * place a key type maps to an `alg` (signing here, verification in modules/did/jws-keys.ts).
 */
export function jwsAlgorithmFor(key: KeyObject): JwsAlgorithm | undefined {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA'
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256'
  return undefined
}

/**
 * Compact JWS (RFC 7515 §7.1) signed by jose, `alg` set from the key. A JSON payload makes a JWT
 * (RFC 7519); bytes are signed as they are (a detached JWS cuts them out, RFC 7515 Appendix F).
 * jose signs through WebCrypto, which runs off the event loop.
 */
export async function signCompactJws(
  header: Record<string, unknown>,
  payload: Record<string, unknown> | Uint8Array,
  privateKey: KeyObject,
): Promise<string> {
  const alg = jwsAlgorithmFor(privateKey)
  if (!alg) throw new Error(`no JWS algorithm for a ${privateKey.asymmetricKeyType ?? privateKey.type} key`)
  const bytes = payload instanceof Uint8Array ? payload : Buffer.from(JSON.stringify(payload), 'utf8')
  return new CompactSign(bytes).setProtectedHeader({ ...header, alg }).sign(privateKey)
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
    if (path)
      return `its ${part} nests deeper than ${JSON_LIMITS.documentDepth} levels (at ${pathText(path).slice(1) || 'the top'})`
  }
  return undefined
}

function jsonTexts(jws: string): [string, string] | undefined {
  const parts = jws.split('.')
  if (parts.length !== 3) return undefined
  return [Buffer.from(parts[0]!, 'base64url').toString('utf8'), Buffer.from(parts[1]!, 'base64url').toString('utf8')]
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null
