import { randomUUID } from 'node:crypto'
import { errors as joseErrors, jwtVerify } from 'jose'
import { decodeCompactJws, signCompactJws } from '../../crypto/jws.js'
import { UnauthenticatedError } from '../../errors.js'
import type { KeyObject } from 'node:crypto'
import type { KeyStore, PublicKeyInfo } from '../keys/key-store.js'

export const JWT_KEY_OWNER = 'service'
export const JWT_KEY_PURPOSE = 'jwt'

const KID = /^key-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const KEY_CACHE_MS = 60_000
const KEY_CACHE_SIZE = 1000
/** Tokens whose signature was checked, kept while in use: a client sends its token many times. */
const VERIFIED_CACHE_SIZE = 10_000

export interface AccessClaims {
  did: string
  jti: string
  issuedAt: number
  expiresAt: number
}

/**
 * Session tokens (DESIGN.md "Auth"): EdDSA JWTs signed with the service key, claims iss, sub
 * (the DID), iat, exp, jti. Verification pins alg to EdDSA and looks the key up by kid, so
 * `alg: none`, HS256-with-the-public-key and tokens of retired-but-known keys are handled
 * deliberately (RFC 8725 §3.1).
 */
export class TokenService {
  private readonly keyCache = new Map<
    string,
    { info: PublicKeyInfo | undefined; key: KeyObject | undefined; loadedAt: number }
  >()
  private readonly verified = new Map<string, { claims: AccessClaims; kid: string }>()

  constructor(
    private readonly keys: KeyStore,
    private readonly issuer: string,
    private readonly ttlSeconds: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async issue(did: string): Promise<{ token: string; claims: AccessClaims }> {
    const key = await this.keys.activeSigningKey(JWT_KEY_OWNER, JWT_KEY_PURPOSE)
    const issuedAt = Math.floor(this.now().getTime() / 1000)
    const claims: AccessClaims = { did, jti: randomUUID(), issuedAt, expiresAt: issuedAt + this.ttlSeconds }
    const token = await signCompactJws(
      { typ: 'JWT', kid: key.kid },
      { iss: this.issuer, sub: did, iat: issuedAt, exp: claims.expiresAt, jti: claims.jti },
      key.privateKey,
    )
    return { token, claims }
  }

  /**
   * The token's claims, or 401. A token whose signature and claims were checked before skips the
   * signature check (the same bytes verify the same way) but not what can change since: it must
   * still be unexpired, and its key still accepted (a retired key's tokens stop with it).
   */
  async verify(token: string): Promise<AccessClaims> {
    const seen = this.verified.get(token)
    if (seen) {
      if (Math.floor(this.now().getTime() / 1000) >= seen.claims.expiresAt) {
        this.verified.delete(token)
        throw new UnauthenticatedError('Token expired')
      }
      if (!(await this.verificationKey(seen.kid))) throw new UnauthenticatedError('Invalid token')
      return seen.claims
    }
    const checked = await this.verifySigned(token)
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!)
    this.verified.set(token, checked)
    return checked.claims
  }

  private async verifySigned(token: string): Promise<{ claims: AccessClaims; kid: string }> {
    // The depth guard (JSON_LIMITS) reads the token before jose parses anything.
    const header = decodeCompactJws(token)?.header
    if (header?.alg !== 'EdDSA' || typeof header.kid !== 'string' || !KID.test(header.kid))
      throw new UnauthenticatedError('Invalid token')
    const kid = header.kid
    const key = await this.verificationKey(kid)
    if (!key) throw new UnauthenticatedError('Invalid token')
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['EdDSA'],
        issuer: this.issuer,
        currentDate: this.now(),
        requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      })
      return { claims: { did: payload.sub!, jti: payload.jti!, issuedAt: payload.iat!, expiresAt: payload.exp! }, kid }
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new UnauthenticatedError('Token expired')
      throw new UnauthenticatedError('Invalid token')
    }
  }

  /**
   * Only the service's JWT keys verify session tokens (never an issuer key of the same table),
   * and a retired one only while tokens it signed before its retirement can still be unexpired:
   * after a rotation forced by a leak, the leaked key stops working within one token lifetime.
   * Lookups, misses included, are cached briefly so unknown kids cannot drive database load.
   */
  private async verificationKey(kid: string): Promise<KeyObject | undefined> {
    const now = this.now().getTime()
    let entry = this.keyCache.get(kid)
    if (!entry || now - entry.loadedAt > KEY_CACHE_MS) {
      const info = await this.keys.publicKey(kid)
      const usable = info?.owner === JWT_KEY_OWNER && info.purpose === JWT_KEY_PURPOSE && info.algorithm === 'Ed25519'
      entry = {
        info: usable ? info : undefined,
        key: usable ? await this.keys.publicKeyObject(kid) : undefined,
        loadedAt: now,
      }
      if (this.keyCache.size >= KEY_CACHE_SIZE) this.keyCache.delete(this.keyCache.keys().next().value!)
      this.keyCache.set(kid, entry)
    }
    const { info, key } = entry
    if (!info || !key) return undefined
    if (info.status === 'retired' && info.retiredAt && now > info.retiredAt.getTime() + this.ttlSeconds * 1000)
      return undefined
    return key
  }
}
