import { decodeCompactJws, jwsNestingProblem } from '../../../../crypto/jws.js'
import { JwsRejected, JwtClaimRejected, verifyDidJws, type VerifiedJws } from '../../../did/did-jws.js'
import type { DidResolver } from '../../../did/did-resolver.js'
import type { CheckResult } from '../credential-format.js'
import {
  FRESH_PRESENTATION_S,
  presentedItem,
  verifyItem,
  type OpenedPresentation,
  type PresentationContext,
  type PresentationKind,
  type PresentedItem,
} from '../presentation-kind.js'

/**
 * A VP-JWT (W3C VCDM 1.1 §6.3.1, OID4VP 1.0 §B.1.3.1; DESIGN.md "Presentation"): signed by an
 * authentication key of the holder's DID, `iss` the holder, `aud` the verifier, `nonce` the
 * request's, `vp.verifiableCredential` the credentials: JWT-VCs, or Dock BBS derived proofs bound
 * to the same nonce and audience.
 */
export function vpJwtKind(deps: { resolver: DidResolver }): PresentationKind {
  const kind: PresentationKind = {
    id: 'w3c-vp-jwt',
    envelope: true,
    oid4vpFormat: 'jwt_vc_json',
    recognizes: (input) => typeof input === 'string' && decodeCompactJws(input)?.payload.vp !== undefined,
    open(input, formats) {
      const text = typeof input === 'string' ? input : ''
      const decoded = decodeCompactJws(text)
      if (!decoded) {
        const nesting = jwsNestingProblem(text)
        return { unreadable: true, reason: nesting ?? 'not a compact JWS', ...(nesting ? { nesting } : {}) }
      }
      const payload = decoded.payload
      const vp = payload.vp as { verifiableCredential?: unknown } | undefined
      const held: unknown[] = Array.isArray(vp?.verifiableCredential) ? vp.verifiableCredential : []
      // Each credential is read when first asked for, once: the holder's cheap checks need none of them.
      let items: PresentedItem[] | undefined
      const presented = () => (items ??= held.map((item) => presentedItem(item, formats)))
      const holder = typeof payload.iss === 'string' ? payload.iss : undefined
      const aud = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud
      const audience = typeof aud === 'string' ? aud : undefined
      const opened: OpenedPresentation = {
        kind,
        holder,
        audience,
        get items() {
          return presented()
        },
        unnamed:
          holder === undefined || audience === undefined ? 'needs iss (the holder) and aud (the verifier)' : undefined,
        mismatch(expected) {
          if (payload.iss !== expected.holder) return 'must be issued (iss) by the holder'
          const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud]
          if (!audiences.includes(expected.audience)) return "must name the request's verifier as aud"
          if (payload.nonce !== expected.nonce) return "must carry the request's nonce"
          return undefined
        },
        signer: async () => (await verifyDidJws(deps.resolver, text, 'authentication')).did,
        verify: (ctx) => checks(text, payload, presented(), ctx, deps.resolver),
      }
      return opened
    },
  }
  return kind
}

/**
 * Its own checks (signature by the holder, iss, aud, nonce, lifetime, vp), then each credential by
 * its format; `unreadable` when there is nothing to check credentials of.
 */
async function checks(
  jwt: string,
  decoded: Record<string, unknown>,
  items: OpenedPresentation['items'],
  ctx: PresentationContext,
  resolver: DidResolver,
) {
  const errors: string[] = []
  const holder = ctx.holderDid
  const now = Math.floor(ctx.now.getTime() / 1000)
  let payload = decoded
  const verified = await lifetimeChecked('presentation', errors, () =>
    verifyDidJws(resolver, jwt, 'authentication', { currentDate: ctx.now, clockTolerance: ctx.skewSeconds }),
  ).catch((error: unknown) => {
    errors.push(`presentation signature: ${error instanceof JwsRejected ? error.message : 'could not be checked'}`)
    return undefined
  })
  if (verified) {
    payload = verified.payload
    if (verified.did !== holder)
      errors.push(`the presentation is signed by ${verified.did}, not by the holder ${holder}`)
  }

  if (payload.iss !== holder) errors.push(`presentation iss ${JSON.stringify(payload.iss)} is not the holder ${holder}`)
  const audience = Array.isArray(payload.aud) ? payload.aud : [payload.aud]
  if (!audience.includes(ctx.audience))
    errors.push(`presentation audience ${JSON.stringify(payload.aud)} is not the verifier ${ctx.audience}`)
  if (ctx.nonce !== undefined && payload.nonce !== ctx.nonce)
    errors.push('presentation nonce does not match the request')
  if (verified)
    errors.push(...issuedInFuture('presentation', payload, now, ctx.skewSeconds), ...unboundedLifetime(payload, ctx))

  const vp = payload.vp as { holder?: unknown; verifiableCredential?: unknown } | undefined
  if (!vp || typeof vp !== 'object')
    return {
      errors: [...errors, 'the presentation has no vp claim'],
      checked: [],
      unreadable: true,
      holderProof: false,
    }
  if (vp.holder !== undefined && vp.holder !== holder) errors.push('vp.holder is not the holder')
  if (items.length === 0) errors.push('the presentation holds no credential')
  // Its own checks are its holder proof: the signature by the holder, iss, aud, nonce, lifetime, a credential in it.
  const holderProof = errors.length === 0

  const nonce = typeof payload.nonce === 'string' ? payload.nonce : undefined
  const checked: CheckResult[] = []
  for (const item of items) {
    checked.push(
      await verifyItem(item, {
        resolver,
        status: ctx.status,
        now: ctx.now,
        skewSeconds: ctx.skewSeconds,
        holderDid: holder,
        ...(nonce === undefined ? {} : { presentation: { nonce, audience: ctx.itemAudience ?? ctx.audience } }),
      }),
    )
  }
  return { errors, checked, unreadable: false, holderProof }
}

/**
 * The verified JWS, with the lifetime problem jose found (exp, nbf) pushed to `errors` as one
 * readable line instead of thrown: a presentation reports every problem it has.
 */
async function lifetimeChecked(
  what: string,
  errors: string[],
  verify: () => Promise<VerifiedJws>,
): Promise<VerifiedJws> {
  try {
    return await verify()
  } catch (error) {
    if (!(error instanceof JwtClaimRejected)) throw error
    const { claim, reason } = error
    if (claim === 'exp') errors.push(reason === 'missing' ? `the ${what} has no exp` : `the ${what} has expired`)
    else if (claim === 'nbf') errors.push(`the ${what} is not valid yet`)
    else errors.push(`the ${what}'s ${error.message}`)
    return error.jws
  }
}

/**
 * A VP's lifetime when it has no `exp` (did-jwt-vc writes none by default; an `exp` that is
 * there is enforced by jose). A recent `iat` (FRESH_PRESENTATION_S on receipt, plus skew) bounds it. Without
 * `iat` too, only a VP answering a request is accepted: its nonce (checked above with `aud`) is
 * the request's, which is answered once and expires, so the VP cannot be replayed elsewhere.
 * A VP with no request must carry `exp` or a recent `iat`.
 */
function unboundedLifetime(payload: Record<string, unknown>, ctx: PresentationContext): string[] {
  if (payload.exp !== undefined) return []
  const received = Math.floor((ctx.receivedAt ?? ctx.now).getTime() / 1000)
  if (typeof payload.iat === 'number') {
    return payload.iat < received - FRESH_PRESENTATION_S - ctx.skewSeconds
      ? [
          `the presentation has no exp and its iat is more than ${FRESH_PRESENTATION_S / 60} minutes before it was received`,
        ]
      : []
  }
  return ctx.nonce !== undefined
    ? []
    : [
        'the presentation has no exp and no iat, and answers no request whose nonce would bind it: one of exp or a recent iat is required',
      ]
}

/** jose checks `iat` against the clock only with maxTokenAge, which would make `iat` required. */
function issuedInFuture(what: string, payload: Record<string, unknown>, now: number, skew: number): string[] {
  return typeof payload.iat === 'number' && payload.iat > now + skew ? [`the ${what} is issued in the future`] : []
}
