import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * Challenges are stateless until spent: `v1.<purpose>.<nonce>.<expiry>.<mac>`, where the MAC
 * (HMAC-SHA256 under a key derived from the master key) binds purpose, nonce, expiry and DID.
 * Creating one costs no database write, so unauthenticated callers cannot grow the database;
 * spending one inserts its nonce into auth_used_challenges, which makes it single-use across
 * instances. The purpose keeps a signature given for one act (signing in) from being redeemed
 * for another (fetching the encrypted seed, a step-up approval).
 */
export const CHALLENGE_PURPOSES = ['login', 'encrypted-seed', 'step-up'] as const
export type ChallengePurpose = (typeof CHALLENGE_PURPOSES)[number]

export interface DecodedChallenge {
  nonce: string
  expiresAt: Date
}

export type ChallengeProblem = 'malformed' | 'wrong-did' | 'wrong-purpose' | 'expired'

const NONCE_BYTES = 16 // 128 bits (DESIGN.md: ≥128-bit random)

export class ChallengeCodec {
  constructor(private readonly macKey: Uint8Array) {}

  create(did: string, purpose: ChallengePurpose, expiresAt: Date): string {
    const nonce = randomBytes(NONCE_BYTES).toString('base64url')
    const expiry = Math.floor(expiresAt.getTime() / 1000).toString()
    return `v1.${purpose}.${nonce}.${expiry}.${this.mac(purpose, nonce, expiry, did)}`
  }

  decode(challenge: string, did: string, purpose: ChallengePurpose, now: Date): DecodedChallenge | ChallengeProblem {
    const parts = challenge.split('.')
    if (parts.length !== 5 || parts[0] !== 'v1') return 'malformed'
    const [, given, nonce, expiry, mac] = parts as [string, string, string, string, string]
    if (!/^[A-Za-z0-9_-]{22}$/.test(nonce) || !/^\d{1,12}$/.test(expiry) || !/^[A-Za-z0-9_-]{43}$/.test(mac))
      return 'malformed'
    if (!(CHALLENGE_PURPOSES as readonly string[]).includes(given)) return 'malformed'
    const expected = Buffer.from(this.mac(given, nonce, expiry, did), 'base64url')
    // A valid MAC for another DID looks the same as a forged one from outside; both fail here.
    if (!timingSafeEqual(expected, Buffer.from(mac, 'base64url'))) return 'wrong-did'
    if (given !== purpose) return 'wrong-purpose'
    const expiresAt = new Date(Number(expiry) * 1000)
    if (expiresAt.getTime() <= now.getTime()) return 'expired'
    return { nonce, expiresAt }
  }

  private mac(purpose: string, nonce: string, expiry: string, did: string): string {
    return createHmac('sha256', this.macKey)
      .update(`v1\u0000${purpose}\u0000${nonce}\u0000${expiry}\u0000${did}`)
      .digest('base64url')
  }
}
