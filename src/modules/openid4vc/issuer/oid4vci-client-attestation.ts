import { createHash } from 'node:crypto'
import { calculateJwkThumbprint, HashAlgorithm, type CallbackContext, type Jwk } from '@openid4vc/oauth2'
import type { Clock } from '../../../adapters/clock.js'
import type { Database } from '../../../db/database.js'
import type { IssuerContext } from './oid4vci-context.js'
import { oid4vciError } from './oid4vci-errors.js'
import { spendDpopJti } from './oid4vci-dpop.repository.js'
import { withWalletTrust } from './oid4vci-wallet-trust.js'

/** How old a client attestation PoP's `iat` may be: it is made for the one request. */
export const ATTESTATION_POP_MAX_AGE_S = 300

/** What the library answers of a verified client attestation and its PoP. */
export interface VerifiedClientAttestation {
  clientAttestation: { payload: { sub: string; cnf: { jwk: Jwk } } }
  clientAttestationPop: { payload: { jti: string; iat?: number } }
}

/**
 * Wallet attestation as client authentication (draft-ietf-oauth-attestation-based-client-auth)
 * at the PAR and token endpoints: @openid4vc/oauth2 reads the `OAuth-Client-Attestation` and
 * `-PoP` headers and checks the PoP against the attestation's `cnf` key, its audience and expiry;
 * this glue gives it the trust (the issuer's trusted wallet providers) and keeps each PoP's `jti`
 * once (§12.1), in the table of DPoP `jti`s, so every instance refuses a replay.
 */
export class ClientAttestations {
  constructor(private readonly deps: { db: Database; clock: Clock; skewSeconds: number }) {}

  /** The issuer's callbacks, with a wallet attestation verified only by a wallet provider its policy trusts. */
  callbacks(ctx: IssuerContext): CallbackContext {
    return withWalletTrust(ctx.callbacks, ctx.policy.trusted_wallet_providers, () => this.deps.clock.now())
  }

  /** The PoP of a verified attestation fresh and never seen before: otherwise `invalid_client`. */
  async spend(verified: VerifiedClientAttestation): Promise<void> {
    const seconds = this.deps.clock.now().getTime() / 1000
    const { jti, iat } = verified.clientAttestationPop.payload
    if (typeof iat !== 'number' || iat < seconds - ATTESTATION_POP_MAX_AGE_S || iat > seconds + this.deps.skewSeconds)
      throw oid4vciError(
        'invalid_client',
        `The client attestation PoP must be made within ${ATTESTATION_POP_MAX_AGE_S} s`,
      )
    const jkt = await calculateJwkThumbprint({
      jwk: verified.clientAttestation.payload.cnf.jwk,
      hashAlgorithm: HashAlgorithm.Sha256,
      hashCallback: (data) => createHash('sha256').update(data).digest(),
    })
    const digest = createHash('sha256').update(`client-attestation-pop ${jkt} ${jti}`).digest('hex')
    const expires = new Date((iat + ATTESTATION_POP_MAX_AGE_S) * 1000)
    if (!(await spendDpopJti(this.deps.db, digest, expires, this.deps.clock.now())))
      throw oid4vciError('invalid_client', 'This client attestation PoP (its jti) was used already')
  }
}
