import type { KeyObject } from 'node:crypto'
import { createHeaderAndPayload, getListFromStatusListJWT, StatusList } from '@owf/token-status-list'
import { statusBit } from '../../crypto/bitstring.js'
import { signCompactJws } from '../../crypto/jws.js'

/** draft-ietf-oauth-status-list §5.1: the media type of a Status List Token in JWT form. */
export const STATUS_LIST_JWT_MEDIA_TYPE = 'application/statuslist+jwt'

/**
 * The W3C Bitstring Status List bits (MSB-first, bitstring.ts) as an IETF Status List Token
 * (draft-ietf-oauth-status-list §5.1, built by @owf/token-status-list, which packs LSB-first and
 * deflates): one bit per credential, `sub` = its URI, `ttl` how long a verifier may cache it.
 */
export async function signTokenStatusList(
  bits: Uint8Array,
  claims: { iss: string; uri: string; iat: number; exp: number; ttl: number },
  signer: { kid: string; alg: string; privateKey: KeyObject },
): Promise<string> {
  const { header, payload } = createHeaderAndPayload(
    new StatusList(tokenStatuses(bits), 1),
    { iss: claims.iss, sub: claims.uri, iat: claims.iat, exp: claims.exp, ttl: claims.ttl },
    { alg: signer.alg, typ: 'statuslist+jwt', kid: signer.kid },
  )
  return signCompactJws(header, payload as Record<string, unknown>, signer.privateKey)
}

/**
 * The W3C bits (MSB-first within a byte) as one status per index, which @owf/token-status-list
 * packs LSB-first (draft-ietf-oauth-status-list §4.1): shared by the JWT and CWT forms.
 */
export function tokenStatuses(bits: Uint8Array): number[] {
  const statuses = new Array<number>(bits.length * 8)
  for (let i = 0; i < statuses.length; i++) statuses[i] = statusBit(bits, i) ? 1 : 0
  return statuses
}

/** The status of `index` in a Status List Token whose signature was already verified. */
export function tokenStatusAt(jwt: string, index: number): number {
  return getListFromStatusListJWT(jwt).getStatus(index)
}
