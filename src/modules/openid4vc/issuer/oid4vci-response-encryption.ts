import * as jose from 'jose'
import { carriesPrivateKey } from './oid4vci-context.js'
import { oid4vciError } from './oid4vci-errors.js'
import { RESPONSE_ENCRYPTION, type Oid4vciPolicy } from './oid4vci-policy.js'

/** The wallet's key and content encryption for the credential response (OID4VCI 1.0 §8.2). */
export interface ResponseEncryption {
  jwk: jose.JWK
  alg: string
  enc: string
}

/**
 * The encryption a credential request asks for, checked against what the issuer offers (§10):
 * refused with `invalid_encryption_parameters` when required and absent, or not what the metadata
 * announces. Without an offer of encryption (`none`) the member is ignored, as it always was.
 * `alg` is the JWK's (1.0); a top-level `alg` (draft 15) is read too.
 */
export function responseEncryptionOf(policy: Oid4vciPolicy, asked: unknown): ResponseEncryption | undefined {
  if (policy.credential_response_encryption === 'none') return undefined
  if (asked === undefined) {
    if (policy.credential_response_encryption === 'required')
      throw oid4vciError(
        'invalid_encryption_parameters',
        'This issuer requires an encrypted credential response: send credential_response_encryption',
      )
    return undefined
  }
  const { jwk, enc, alg, zip } = asked as { jwk?: jose.JWK; enc?: string; alg?: string; zip?: string }
  const keyAlg = jwk?.alg ?? alg
  if (
    typeof jwk !== 'object' ||
    jwk === null ||
    carriesPrivateKey(jwk) ||
    jwk.kty !== 'EC' ||
    jwk.crv !== 'P-256' ||
    !RESPONSE_ENCRYPTION.alg.includes(keyAlg ?? '') ||
    !RESPONSE_ENCRYPTION.enc.includes(enc ?? '') ||
    zip !== undefined
  ) {
    throw oid4vciError(
      'invalid_encryption_parameters',
      `credential_response_encryption: a public P-256 jwk with alg ${RESPONSE_ENCRYPTION.alg.join('/')}, enc ${RESPONSE_ENCRYPTION.enc.join(' or ')}, no zip`,
    )
  }
  return { jwk, alg: keyAlg!, enc: enc! }
}

/** §10: the credential response as a compact JWE (RFC 7516) to the wallet's key, by jose. */
export async function encryptResponse(encryption: ResponseEncryption, body: Record<string, unknown>): Promise<string> {
  let key
  try {
    key = await jose.importJWK(encryption.jwk, encryption.alg)
  } catch (error) {
    throw oid4vciError(
      'invalid_encryption_parameters',
      'The credential_response_encryption jwk is not a usable key',
      error,
    )
  }
  return new jose.CompactEncrypt(new TextEncoder().encode(JSON.stringify(body)))
    .setProtectedHeader({
      alg: encryption.alg,
      enc: encryption.enc,
      ...(encryption.jwk.kid ? { kid: encryption.jwk.kid } : {}),
    })
    .encrypt(key)
}
