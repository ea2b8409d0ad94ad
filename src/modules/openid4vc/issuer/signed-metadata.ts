import { SignJWT } from 'jose'
import type { CertifiedKey } from '../../certificates/issuer-leaves.js'

/** The JWT type of signed Credential Issuer Metadata (OID4VCI 1.0 §12.2.3). */
export const SIGNED_METADATA_TYP = 'openidvci-issuer-metadata+jwt'

/**
 * Signed Credential Issuer Metadata (OID4VCI 1.0 §12.2.3): a JWT whose claims are the metadata
 * parameters, `sub` the credential issuer, `iss` the party attesting them (the issuer itself) and
 * `iat`, signed ES256 by the issuer's metadata key with its certificate in `x5c` (RFC 7515 §4.1.6)
 * so a wallet checks it against the issuer's IACA (HAIP).
 */
export function signMetadata(
  metadata: { credential_issuer: string } & Record<string, unknown>,
  signer: CertifiedKey,
  now: Date,
): Promise<string> {
  return new SignJWT({ ...metadata, iss: metadata.credential_issuer })
    .setProtectedHeader({
      alg: 'ES256',
      typ: SIGNED_METADATA_TYP,
      x5c: signer.chain.map((der) => Buffer.from(der).toString('base64')),
    })
    .setSubject(metadata.credential_issuer)
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .sign(signer.privateKey)
}

/** The metadata with `signed_metadata` beside its parameters; unchanged when the issuer has no metadata key. */
export async function withSignedMetadata<M extends { credential_issuer: string }>(
  metadata: M,
  signer: CertifiedKey | undefined,
  now: Date,
): Promise<M & { signed_metadata?: string }> {
  if (!signer) return metadata
  return { ...metadata, signed_metadata: await signMetadata(metadata, signer, now) }
}
