import { createPublicKey } from 'node:crypto'
import type { Jwk, JwtSignerX5c, SignJwtCallback } from '@openid4vc/oauth2'
import { Openid4vciIssuer, type CredentialIssuerMetadata } from '@openid4vc/openid4vci'
import * as jose from 'jose'
import type { CertifiedKey } from '../../certificates/issuer-leaves.js'

/**
 * Signed Credential Issuer Metadata (OID4VCI 1.0 §12.2.3), made by the library: a JWT of `typ`
 * `openidvci-issuer-metadata+jwt` whose claims are the metadata parameters, `sub` the credential
 * issuer, `iss` the party attesting them (the issuer itself) and `iat`, signed ES256 by the
 * issuer's metadata key with its certificate in `x5c` (RFC 7515 §4.1.6), so a wallet checks it
 * against the issuer's IACA (HAIP).
 */
export function signMetadata(metadata: CredentialIssuerMetadata, signer: CertifiedKey, now: Date): Promise<string> {
  const signJwt: SignJwtCallback = async (_signer, { header, payload }) => ({
    jwt: await new jose.SignJWT(payload as jose.JWTPayload)
      .setProtectedHeader(header as jose.JWTHeaderParameters)
      .sign(signer.privateKey),
    signerJwk: (await jose.exportJWK(createPublicKey(signer.privateKey))) as Jwk,
  })
  const x5c: JwtSignerX5c = {
    method: 'x5c',
    alg: 'ES256',
    x5c: signer.chain.map((der) => Buffer.from(der).toString('base64')),
  }
  return new Openid4vciIssuer({ callbacks: { signJwt } as never }).createSignedCredentialIssuerMetadataJwt({
    credentialIssuerMetadata: metadata,
    signer: x5c,
    issuer: metadata.credential_issuer,
    issuedAt: now,
  })
}

/** The metadata with `signed_metadata` beside its parameters; unchanged when the issuer has no metadata key. */
export async function withSignedMetadata(
  metadata: CredentialIssuerMetadata,
  signer: CertifiedKey | undefined,
  now: Date,
): Promise<CredentialIssuerMetadata & { signed_metadata?: string }> {
  if (!signer) return metadata
  return { ...metadata, signed_metadata: await signMetadata(metadata, signer, now) }
}

/**
 * Whether a metadata request asks for the signed form itself (OID4VCI 1.0 §12.2.2: `Accept:
 * application/jwt`), that is names it and prefers nothing JSON over it.
 */
export function prefersJwt(accept: string | undefined): boolean {
  const ranked = (accept ?? '')
    .split(',')
    .map((entry) => {
      const [type, ...params] = entry.trim().toLowerCase().split(';')
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
      return { type: type!.trim(), q: q ? Number(q.slice(2)) || 0 : 1 }
    })
    .filter((r) => r.q > 0)
  const jwt = ranked.find((r) => r.type === 'application/jwt')
  return !!jwt && !ranked.some((r) => (r.type === 'application/json' || r.type === '*/*') && r.q > jwt.q)
}
