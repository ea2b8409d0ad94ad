import type { VerifyJwtCallback } from '@openid4vc/oauth2'
import * as jose from 'jose'
import type { Clock } from '../../../adapters/clock.js'
import { UnprocessableError } from '../../../errors.js'

/**
 * The verifyJwt callback of the hosted wallet's protocol clients, with the service's clock and
 * CLOCK_SKEW_SECONDS on the times of what another party signed (a verifier's request object, an
 * issuer's signed metadata). @openid4vc/oauth2 checks `nbf`/`exp` against the machine's clock with
 * `allowedSkewInSeconds`, but neither @openid4vc/openid4vp nor @openid4vc/openid4vci lets a caller
 * pass it (0 s: a verifier 2 s ahead is refused). So, once `verify` accepts the signature, jose
 * checks `nbf` and `exp` with `clockTolerance` (RFC 7519 §4.1.4-5) and `iat` is refused when
 * further ahead than the skew (§4.1.6); the two claims are then removed from the decoded payload
 * the library goes on to check with no leeway: it reads them from this very object.
 */
export function withClockSkew(
  verify: VerifyJwtCallback,
  options: { clock: Clock; skewSeconds: number; what: string },
): VerifyJwtCallback {
  return async (signer, jwt) => {
    const result = await verify(signer, jwt)
    if (!result.verified) return result
    const currentDate = options.clock.now()
    const skew = options.skewSeconds
    const { payload } = jwt
    const past = (claim: string) => {
      const seconds = Number(payload[claim]) - Math.floor(currentDate.getTime() / 1000)
      const state = seconds > 0 ? 'not valid yet' : 'expired'
      const offset = `${Math.abs(seconds)} s ${seconds > 0 ? 'ahead of' : 'behind'} this service's clock`
      const tolerated = `more than the ${skew} s it tolerates (CLOCK_SKEW_SECONDS, RFC 7519 §4.1)`
      return new UnprocessableError(`${options.what} is ${state}: its ${claim} is ${offset}, ${tolerated}`, {
        details: { claim },
      })
    }
    try {
      const key = await jose.importJWK(result.signerJwk as jose.JWK, signer.alg)
      await jose.jwtVerify(jwt.compact, key, { currentDate, clockTolerance: skew, algorithms: [signer.alg] })
    } catch (error) {
      const failed = error instanceof jose.errors.JWTClaimValidationFailed || error instanceof jose.errors.JWTExpired
      if (failed && error.reason === 'check_failed' && (error.claim === 'nbf' || error.claim === 'exp'))
        throw past(error.claim)
      throw new UnprocessableError(`${options.what} is not a valid JWT: ${(error as Error).message}`)
    }
    if (typeof payload.iat === 'number' && payload.iat > currentDate.getTime() / 1000 + skew) throw past('iat')
    delete payload.nbf
    delete payload.exp
    return result
  }
}
