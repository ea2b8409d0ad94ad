import { createPublicKey, verify, type JsonWebKey } from 'node:crypto'
import type { Jwk } from '@openid4vc/oauth2'
import { ValidationError } from '../../../errors.js'
import type { PreparedCose } from '../../credentials/formats/holder-face.js'

export type { PreparedCose }

/** ES256 as COSE carries it (RFC 9053 §2.1): ECDSA P-256 with SHA-256, the signature r||s (32 bytes each). */
const ES256_SIGNATURE_BYTES = 64

/**
 * The holder's raw signature (base64url) over exactly the prepared bytes, verified with `key` (the
 * key the credential is bound to) before it is sent on; returns its bytes.
 */
export function checkHolderCoseSignature(prepared: PreparedCose, signature: string, field: string, key: Jwk): Buffer {
  const refused = (why: string) => new ValidationError(`${field} is refused: ${why}`, { details: { field } })
  const bytes = Buffer.from(signature, 'base64url')
  if (!/^[A-Za-z0-9_-]+$/.test(signature) || bytes.length !== ES256_SIGNATURE_BYTES)
    throw refused('it must be the base64url of a raw ES256 signature (r||s, 64 bytes) over cose.to_be_signed')
  const publicKey = createPublicKey({ key: key as JsonWebKey, format: 'jwk' })
  const data = Buffer.from(prepared.to_be_signed, 'base64url')
  if (!verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, bytes))
    throw refused('the signature does not verify over cose.to_be_signed with the key the credential is bound to')
  return bytes
}
