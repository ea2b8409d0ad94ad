import { X509Certificate, type KeyObject } from 'node:crypto'
import type { CallbackContext, Jwk } from '@openid4vc/oauth2'
import * as jose from 'jose'
import { ATTESTATION_ALGS } from './oid4vci-policy.js'
import type { TrustedWalletProvider } from './oid4vci-policy.table.js'

const MAX_CHAIN = 5

/** JWTs only a trusted wallet provider may sign: wallet attestations (draft-ietf-oauth-attestation-based-client-auth §5.1) and key attestations (OID4VCI 1.0 Appendix D.1; the library also reads the earlier typ). */
const PROVIDER_SIGNED = new Set(['oauth-client-attestation+jwt', 'key-attestation+jwt', 'keyattestation+jwt'])

/**
 * The library's callbacks with wallet and key attestations verified against `providers` only,
 * whatever key their header names (a `jwk` there would be self-attestation); other JWTs as before.
 */
export function withWalletTrust(
  callbacks: CallbackContext,
  providers: readonly TrustedWalletProvider[],
  now: () => Date,
): CallbackContext {
  return {
    ...callbacks,
    verifyJwt: async (signer, jwt) => {
      if (!PROVIDER_SIGNED.has(String(jwt.header.typ))) return callbacks.verifyJwt(signer, jwt)
      const signerJwk = await verifyByTrustedProvider(jwt.compact, jwt.header, providers, now())
      return signerJwk ? { verified: true, signerJwk } : { verified: false }
    },
  }
}

/**
 * Whether a wallet provider the issuer trusts signed `compact` (a wallet attestation, a key
 * attestation): with one of the trusted keys, or with the leaf of its `x5c` header, whose chain
 * ends at a trusted certificate, every certificate valid at `now`. Answers the signer's public JWK.
 */
export async function verifyByTrustedProvider(
  compact: string,
  header: Record<string, unknown>,
  providers: readonly TrustedWalletProvider[],
  now: Date,
): Promise<Jwk | undefined> {
  if (header.x5c !== undefined) {
    const leaf = chainedLeaf(header.x5c, providers, now)
    return leaf ? verifiedWith(compact, leaf.publicKey) : undefined
  }
  for (const provider of providers) {
    if (!('jwk' in provider)) continue
    const key = await jose.importJWK(provider.jwk as jose.JWK, 'ES256').catch(() => undefined)
    if (key && !(key instanceof Uint8Array) && (await verifiedWith(compact, key))) return provider.jwk as Jwk
  }
  return undefined
}

type VerifyKey = Exclude<Parameters<typeof jose.exportJWK>[0], Uint8Array> | KeyObject

async function verifiedWith(compact: string, key: VerifyKey): Promise<Jwk | undefined> {
  try {
    await jose.compactVerify(compact, key, { algorithms: ATTESTATION_ALGS })
  } catch {
    return undefined
  }
  return (await jose.exportJWK(key)) as Jwk
}

/** RFC 7515 §4.1.6: the leaf of an `x5c` whose each certificate is issued and signed by the next, the last by (or being) a trusted one. */
function chainedLeaf(
  x5c: unknown,
  providers: readonly TrustedWalletProvider[],
  now: Date,
): X509Certificate | undefined {
  if (!Array.isArray(x5c) || x5c.length === 0 || x5c.length > MAX_CHAIN) return undefined
  let chain: X509Certificate[]
  try {
    chain = x5c.map((der) => new X509Certificate(Buffer.from(String(der), 'base64')))
  } catch {
    return undefined
  }
  const valid = (c: X509Certificate) => new Date(c.validFrom) <= now && now <= new Date(c.validTo)
  if (!chain.every(valid)) return undefined
  for (let i = 0; i + 1 < chain.length; i++) {
    if (!chain[i]!.checkIssued(chain[i + 1]!) || !chain[i]!.verify(chain[i + 1]!.publicKey)) return undefined
  }
  const last = chain.at(-1)!
  for (const provider of providers) {
    if (!('certificate_pem' in provider)) continue
    const anchor = new X509Certificate(provider.certificate_pem)
    if (!valid(anchor)) continue
    if (last.raw.equals(anchor.raw)) return chain[0]
    if (last.checkIssued(anchor) && last.verify(anchor.publicKey)) return chain[0]
  }
  return undefined
}
