import { createHash } from 'node:crypto'
import { decodeJwt } from '@openid4vc/oauth2'
import type { Clock } from '../../../adapters/clock.js'
import type { SecretBox } from '../../../crypto/secret-box.js'
import type { Database } from '../../../db/database.js'
import { ValidationError, type AppError } from '../../../errors.js'
import { firstLine } from '../shared/library-message.js'
import { carriesPrivateKey } from './oid4vci-context.js'
import { ResourceUnauthorized } from './oid4vci-errors.js'
import * as repo from './oid4vci-dpop.repository.js'

/** How old a DPoP proof's `iat` may be (RFC 9449 §4.3 check 11, §11.1): a captured proof is worthless past it. */
export const DPOP_PROOF_MAX_AGE_S = 300
/** A server nonce is good this long (RFC 9449 §8): proofs cannot be made more than this in advance. */
export const DPOP_NONCE_TTL_S = 120
/** Spent `jti`s past their window are swept at most this often per instance. */
const SWEEP_MS = 10_000

/** Where a proof was sent: the token endpoint answers 400s (RFC 9449 §5, §8), a protected resource 401s (§7.1, §9). */
export type DpopSite = 'token' | 'resource'

/** What the nonce and time checks read from a proof: kept to record its `jti`. */
export interface AdmittedProof {
  iat: number
  jti: string
}

/** A proof the library verified (signature, typ, htm, htu, ath, key thumbprint); what is left to check is time and reuse. */
export interface VerifiedProof {
  jwt: string
  /** The JWK SHA-256 thumbprint of the proof key (RFC 7638). */
  jkt: string
}

/**
 * The checks of a DPoP proof that @openid4vc/oauth2 leaves to the server (RFC 9449): a server
 * nonce (§8, §9), an `iat` within [now − DPOP_PROOF_MAX_AGE_S, now + CLOCK_SKEW_SECONDS]
 * (§4.3 check 11) and a `jti` used once per key within that window (§11.1). The nonce is
 * stateless: the expiry sealed (AES-256-GCM, the master key's SecretBox) to the credential issuer,
 * so any instance checks it without the database; it need not be single use (§8.2), the `jti`
 * is, and `jti`s are kept in the database, so every instance refuses a replay.
 */
export class DpopFreshness {
  private lastSweep = 0

  constructor(
    private readonly deps: {
      db: Database
      clock: Clock
      box: SecretBox
      /** CLOCK_SKEW_SECONDS: how far ahead of this server's clock a proof's `iat` may be (a wallet's clock a little fast). */
      skewSeconds: number
    },
  ) {}

  /** A fresh nonce for the credential issuer `webId` (its token and protected endpoints alike). */
  nonce(webId: string): string {
    const expires = Buffer.alloc(8)
    expires.writeBigUInt64BE(BigInt(Math.floor(this.deps.clock.now().getTime() / 1000) + DPOP_NONCE_TTL_S))
    return Buffer.from(this.deps.box.seal(expires, aad(webId))).toString('base64url')
  }

  /** A verified proof's nonce, `iat` and `jti` checked, and its `jti` recorded (the protected endpoints). */
  async check(webId: string, proof: VerifiedProof, site: DpopSite, nonceRequired = true): Promise<void> {
    await this.spend(proof.jkt, this.admit(webId, proof.jwt, site, nonceRequired), site)
  }

  /**
   * A proof's nonce and `iat` (no I/O): throws `use_dpop_nonce` or `invalid_dpop_proof`. The token
   * endpoint asks this first, so a proof without a nonce costs no code lookup and no tx_code try.
   * `nonceRequired` false (the issuer's policy): a proof may come without a nonce, one it carries is still checked.
   */
  admit(webId: string, jwt: string, site: DpopSite, nonceRequired = true): AdmittedProof {
    let decoded
    try {
      decoded = decodeJwt({ jwt })
    } catch (error) {
      throw refusal(site, 'invalid_dpop_proof', `The DPoP proof is unreadable: ${firstLine(error)}`)
    }
    // RFC 9449 §4.3 check 7: a key sent with its private part is no proof of possession.
    if (carriesPrivateKey(decoded.header.jwk)) {
      throw refusal(
        site,
        'invalid_dpop_proof',
        "The DPoP proof's jwk must be a public key: it carries private key members",
      )
    }
    const payload: Record<string, unknown> = decoded.payload
    const seconds = this.deps.clock.now().getTime() / 1000
    const nonceWaived = !nonceRequired && payload.nonce === undefined
    if (!nonceWaived && !this.nonceValid(webId, payload.nonce, seconds)) {
      const description =
        payload.nonce === undefined
          ? 'The DPoP proof must carry the server nonce of the DPoP-Nonce header'
          : 'The DPoP proof carries an unknown or expired nonce: use the one of the DPoP-Nonce header'
      throw refusal(site, 'use_dpop_nonce', description)
    }
    const { iat, jti } = payload
    if (typeof iat !== 'number' || !Number.isFinite(iat))
      throw refusal(site, 'invalid_dpop_proof', 'The DPoP proof has no iat')
    if (iat < seconds - DPOP_PROOF_MAX_AGE_S) {
      throw refusal(
        site,
        'invalid_dpop_proof',
        `The DPoP proof is too old: its iat is more than ${DPOP_PROOF_MAX_AGE_S} s ago`,
      )
    }
    if (iat > seconds + this.deps.skewSeconds) {
      throw refusal(
        site,
        'invalid_dpop_proof',
        `The DPoP proof is dated ahead: its iat is over ${this.deps.skewSeconds} s ahead`,
      )
    }
    if (typeof jti !== 'string' || jti.length === 0)
      throw refusal(site, 'invalid_dpop_proof', 'The DPoP proof has no jti')
    return { iat, jti }
  }

  /** Records an admitted proof's `jti` for its key (once the library verified its signature): a replay is `invalid_dpop_proof`. */
  async spend(jkt: string, proof: AdmittedProof, site: DpopSite): Promise<void> {
    const now = this.deps.clock.now()
    // Kept until the iat leaves the window: after that the proof is refused as too old anyway.
    const digest = createHash('sha256').update(`${jkt} ${proof.jti}`).digest('hex')
    const fresh = await repo.spendDpopJti(
      this.deps.db,
      digest,
      new Date((proof.iat + DPOP_PROOF_MAX_AGE_S) * 1000),
      now,
    )
    if (!fresh)
      throw refusal(
        site,
        'invalid_dpop_proof',
        'This DPoP proof (its jti) was used already: send a new proof with each request',
      )
    if (now.getTime() - this.lastSweep >= SWEEP_MS || now.getTime() < this.lastSweep) {
      this.lastSweep = now.getTime()
      await repo.deleteExpiredDpopJtis(this.deps.db, now)
    }
  }

  private nonceValid(webId: string, nonce: unknown, seconds: number): boolean {
    if (typeof nonce !== 'string' || nonce.length > 200) return false
    try {
      const expires = Buffer.from(this.deps.box.open(Buffer.from(nonce, 'base64url'), aad(webId)))
      return expires.length === 8 && Number(expires.readBigUInt64BE()) > seconds
    } catch {
      return false
    }
  }
}

const aad = (webId: string) => `dpop-nonce ${webId}`

/**
 * A refusal as RFC 9449 words it: at the token endpoint a 400 (§5, §8), at a protected resource a
 * 401 with the DPoP challenge (§7.1, §9). The route sends a fresh DPoP-Nonce with every answer.
 */
function refusal(site: DpopSite, code: 'use_dpop_nonce' | 'invalid_dpop_proof', description: string): AppError {
  if (site === 'resource')
    return new ResourceUnauthorized(description, `DPoP error="${code}", algs="ES256 EdDSA"`, code)
  return new ValidationError(description, { details: { oauth_error: code } })
}
