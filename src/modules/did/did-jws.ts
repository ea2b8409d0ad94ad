import { compactVerify, errors as joseErrors, jwtVerify } from 'jose'
import { decodeCompactJws, JWS_ALGORITHMS, jwsNestingProblem } from '../../crypto/jws.js'
import type { DidResolver } from './did-resolver.js'
import { JWS_KEY_TYPES, jwsKeyFor, jwsKeyOfMethod, jwsKeysFor, type JwsKey } from './jws-keys.js'

export interface VerifiedJws {
  header: Record<string, unknown>
  payload: Record<string, unknown>
  /** The DID whose document authorized the key (the part of `kid` before `#`). */
  did: string
  kid: string
}

/** A JWS that does not verify; the message says why in words a holder or verifier can act on. */
export class JwsRejected extends Error {}

/** The time claims of a JWT (RFC 7519 §4.1.4-6), checked by jose after the signature. */
export interface JwtClaimChecks {
  currentDate: Date
  /** Seconds of clock difference tolerated on `exp` and `nbf`. */
  clockTolerance: number
  requiredClaims?: Array<'exp' | 'nbf' | 'iat'>
}

/**
 * A JWT whose signature verifies but whose claim `claim` fails: missing (`reason` "missing"), not
 * a NumericDate ("invalid"), or outside the validity period ("check_failed"). `jws` is what the
 * signature proves, for callers that report every problem of a presentation.
 */
export class JwtClaimRejected extends Error {
  constructor(
    readonly claim: string,
    readonly reason: string,
    readonly jws: VerifiedJws,
  ) {
    super(
      `${claim} is ${reason === 'missing' ? 'missing' : reason === 'invalid' ? 'not a NumericDate (RFC 7519 §2)' : 'out of range'}`,
    )
  }
}

const EXPECTED_ALGS = `one of ${JWS_ALGORITHMS.join(', ')}`

/**
 * Verifies a compact JWS (RFC 7515) with jose, by a key a DID document authorizes: `kid` is a DID
 * URL (`did:…#fragment`), resolved through the same resolver as `GET /api/did/:did` (did:key
 * computed, did:web fetched, issuers' service-managed keys), and the method must be listed under
 * `relationship` (`authentication` for a holder's VP, `assertionMethod` for a credential); `alg`
 * is pinned to the one that method's key type verifies (RFC 8725 §3.1). Only what that public
 * document says is trusted. With `claims`, it is verified as a JWT and jose checks `exp`/`nbf`.
 * `kid` is OPTIONAL in a JWS (RFC 7515 §4.1.4) and libraries such as did-jwt-vc leave it out:
 * then the DID in `iss` is resolved and its one key for `relationship` and `alg` verifies; a
 * document with none or several is refused, naming the DID and the count.
 */
export async function verifyDidJws(
  resolver: DidResolver,
  jws: string,
  relationship: 'authentication' | 'assertionMethod',
  claims?: JwtClaimChecks,
): Promise<VerifiedJws> {
  // The depth guard runs before jose parses anything (JSON_LIMITS).
  const decoded = decodeCompactJws(jws)
  if (!decoded) throw new JwsRejected(jwsNestingProblem(jws) ?? 'not a compact JWS')
  const { header, payload } = decoded
  if (!(JWS_ALGORITHMS as readonly unknown[]).includes(header.alg))
    throw new JwsRejected(`unsupported alg ${JSON.stringify(header.alg)} (${EXPECTED_ALGS} expected)`)
  const named = header.kid
  if (named !== undefined && (typeof named !== 'string' || !named.startsWith('did:') || !named.includes('#')))
    throw new JwsRejected('header kid must be a DID URL (did:…#key)')
  // Without kid (did-jwt-vc's default header {alg, typ}), `iss` names the signer's DID.
  const did = named === undefined ? signerFromIss(payload.iss) : named.slice(0, named.indexOf('#'))
  const documentOf = async (fresh: boolean) => {
    try {
      return (await resolver.resolve(did, { fresh })).didDocument
    } catch (error) {
      throw new JwsRejected(`the DID ${did} could not be resolved: ${(error as Error).message}`)
    }
  }
  let kid: string
  let key: JwsKey | undefined
  if (named === undefined) {
    // A document served from a short cache may predate the key (as below): a miss is retried fresh.
    let candidates = jwsKeysFor(await documentOf(false), relationship, header.alg as string)
    if (candidates.length === 0) candidates = jwsKeysFor(await documentOf(true), relationship, header.alg as string)
    // Only a key the document makes unambiguous is taken; with several the signer must name one.
    if (candidates.length !== 1) {
      throw new JwsRejected(
        `the header has no kid and ${did} has ${candidates.length} ${relationship} keys for ${String(header.alg)}: without kid exactly one is accepted`,
      )
    }
    kid = candidates[0]!.id
    key = candidates[0]!
  } else {
    kid = named
    const keyIn = async (fresh: boolean): Promise<JwsKey | undefined> =>
      jwsKeyFor(await documentOf(fresh), kid, relationship)
    // A key issuers signed with before signing identities verifies what it signed then, and only
    // as an assertion; a document served from a short cache may predate a key made since (a new
    // issuer, a rotation on another instance): a miss is retried once on a fresh resolution.
    const legacy = relationship === 'assertionMethod' ? await resolver.legacyAssertionMethod(kid) : undefined
    key = legacy ? jwsKeyOfMethod(legacy) : ((await keyIn(false)) ?? (await keyIn(true)))
    if (!key) throw new JwsRejected(`${kid} is not an ${JWS_KEY_TYPES} ${relationship} key of ${did}`)
    if (header.alg !== key.alg)
      throw new JwsRejected(`alg ${JSON.stringify(header.alg)} does not match ${kid}, a key for ${key.alg}`)
  }
  const verified = { header, payload, did, kid }
  try {
    const options = { algorithms: [key.alg] }
    if (claims) await jwtVerify(jws, key.key, { ...options, ...claims })
    else await compactVerify(jws, key.key, options)
  } catch (error) {
    if (error instanceof joseErrors.JWTClaimValidationFailed || error instanceof joseErrors.JWTExpired)
      throw new JwtClaimRejected(error.claim, error.reason, verified)
    if (error instanceof joseErrors.JWSSignatureVerificationFailed)
      throw new JwsRejected(`the signature does not verify with ${kid}`)
    if (error instanceof joseErrors.JOSEError) throw new JwsRejected(`not a valid JWS: ${error.message}`)
    throw error
  }
  return verified
}

/** The DID in `iss` of a JWS without kid; a DID URL or anything else names no document. */
function signerFromIss(iss: unknown): string {
  if (typeof iss !== 'string' || !iss.startsWith('did:') || /[#?/]/.test(iss)) {
    throw new JwsRejected('the header has no kid and iss is not a DID: one of them must name the signer')
  }
  return iss
}
