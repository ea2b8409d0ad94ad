import type { Jwk } from '@openid4vc/oauth2'
import type { DcqlCredential } from 'dcql'

/** A DCQL claim path (OpenID4VP 1.0 §7). */
export type ClaimPath = Array<string | number | null>

/**
 * What one presentation lets the verifier read, in the credential's DCQL claim space: `disclosed`
 * the values as the verifier reads them, `claims` the path of each (subject claims leaf by leaf,
 * the issuer's envelope claims whole), `subject_claims` how many of those paths are the holder's attributes.
 */
export interface Disclosure {
  claims: ClaimPath[]
  disclosed: Record<string, unknown>
  subject_claims: number
}

/** A JWS the holder is asked to sign: the header and payload a library or the format built. */
export interface PreparedJws {
  header: Record<string, unknown>
  payload: Record<string, unknown>
  /** `BASE64URL(header) || '.' || BASE64URL(payload)` (RFC 7515 §5.1 step 5): what the holder's key signs. */
  signing_input: string
}

/**
 * Bytes the holder signs as they are, for a COSE signature (RFC 9052 §4.4): `to_be_signed` is the
 * base64url of the Sig_structure, the signature is `alg`'s raw form (ES256: r||s, RFC 9053 §2.1).
 */
export interface PreparedCose {
  alg: 'ES256'
  to_be_signed: string
  /** The public key (JWK) that must sign: the one the credential is bound to (an mdoc's device key). */
  key: Jwk
}

/** What the holder is asked to sign, as the prepared answer shows it: a JWS, or bytes for a COSE signature. */
export type ToSign = PreparedJws | { cose: PreparedCose }

/** One presentation the holder finishes by signing: a JWS signing input, or bytes for a COSE signature. */
export type PresentationDraft = JwsDraft | CoseDraft

/** A presentation whose holder proof is a JWS over `jws.signing_input`; the signed JWS comes back. */
export interface JwsDraft {
  jws: PreparedJws
  /** How the signed JWS becomes the presentation: `sd-jwt`: appended as the KB-JWT; `vp-jwt`: it is the presentation. */
  assembly: { kind: 'sd-jwt'; prefix: string; key: Jwk } | { kind: 'vp-jwt' }
}

/** A presentation holding a signature over `cose.to_be_signed`; the raw signature comes back, base64url. */
export interface CoseDraft {
  cose: PreparedCose
  /**
   * `signature-in-bytes`: the presentation is base64url(prefix || signature || suffix), prefix and
   * suffix base64url, the signature verified with `key` (the key the credential is bound to) first.
   */
  assembly: { kind: 'signature-in-bytes'; prefix: string; suffix: string; key: Jwk }
}

/** The verifier's nonce and audience a holder proof carries, and when it is made. */
export interface HolderProofClaims {
  aud: string
  nonce: string
  iat: number
}

/** The OpenID4VP request a presentation answers, as a format binding its proof to the request reads it (OpenID4VP 1.0 §5). */
export interface Oid4vpRequestContext {
  /** The request's `client_id` parameter, prefix included. */
  clientId: string
  nonce: string
  responseUri: string
  /** direct_post.jwt: the verifier's key the response is encrypted to. */
  encryptionJwk?: Jwk
}

export interface DraftContext {
  proof: HolderProofClaims
  oid4vp: Oid4vpRequestContext
  /** The holder DID's key a presentation is signed with, for formats whose holder proof is signed by the DID (VP-JWT). */
  holderKey(): Promise<{ did: string; kid: string; alg: string }>
}

/**
 * The hosted wallet's side of a format (OpenID4VP 1.0): how a stored credential is matched by a
 * DCQL query, what presenting it discloses, and the draft of its presentation for the holder to sign.
 */
export interface HolderFace {
  /** The credential as DCQL matches it (its format identifier, type and claims); undefined when a query cannot ask for it. */
  dcqlCredential(item: string): Promise<DcqlCredential | undefined>
  /** What presenting it with the claims at `paths` lets the verifier read. */
  disclosure(item: string, paths: ClaimPath[]): Promise<Disclosure>
  /** Its presentation disclosing the claims at `paths`, with the holder proof left to sign. */
  draft(item: string, paths: ClaimPath[], ctx: DraftContext): Promise<PresentationDraft>
}

/** The paths of the leaves of a JSON value below `prefix`; arrays and scalars are leaves. */
export function leafPaths(value: unknown, prefix: ClaimPath): ClaimPath[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix]
  const entries = Object.entries(value)
  if (entries.length === 0) return [prefix]
  return entries.flatMap(([key, inner]) => leafPaths(inner, [...prefix, key]))
}
