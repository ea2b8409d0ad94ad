import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import type { DcqlCredential } from 'dcql'
import { decodeCompactJws } from '../../../crypto/jws.js'
import { sha256Hasher } from '../../credentials/formats/sd-jwt-vc/sd-jwt-crypto.js'

/**
 * A wallet credential as DCQL (OpenID4VP 1.0 §6) matches it: its format identifier, its type
 * (`vct` or the W3C `type`) and every claim the holder could disclose. Formats OpenID4VP does
 * not name (vc+jwt, Dock BBS) are left out: no query can ask for them.
 */
export async function dcqlCredentialOf(formatId: string | undefined, item: string): Promise<DcqlCredential | undefined> {
  if (formatId === 'dc+sd-jwt') {
    const claims = (await new SDJwtVcInstance({ hasher: sha256Hasher }).getClaims(item)) as Record<string, unknown>
    if (typeof claims.vct !== 'string') return undefined
    return { credential_format: 'dc+sd-jwt', vct: claims.vct, claims: claims as never, cryptographic_holder_binding: claims.cnf !== undefined }
  }
  if (formatId === 'jwt_vc_json') {
    const vc = decodeCompactJws(item)?.payload.vc as Record<string, unknown> | undefined
    if (!vc) return undefined
    return { credential_format: 'jwt_vc_json', type: asStrings(vc.type), claims: vc as never, cryptographic_holder_binding: true }
  }
  return undefined
}

const asStrings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : [])
