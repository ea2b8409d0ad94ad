import type { Clock } from '../../adapters/clock.js'
import { toBase64Url } from '../../crypto/encoding.js'
import { signCompactJws } from '../../crypto/jws.js'
import type { KeyStore, PublicKeyInfo } from '../keys/key-store.js'

/** The service's callback-signing key in the key store; rotate it with the admin keys route. */
export const CALLBACK_KEY_OWNER = 'service'
export const CALLBACK_KEY_PURPOSE = 'callback-signing'
/** Explicit typing (RFC 8725 §3.11): a signature made for a callback is not mistaken for another object. */
export const CALLBACK_JWS_TYP = 'callback+jws'
/**
 * How long a retired key stays in the JWKS. Each attempt is signed when it is sent, so a retired
 * key only signed what went out within a minute of the rotation (the key store's cache); a
 * week covers receivers that verify late, and after a rotation forced by a leak the leaked key
 * stops verifying once it has passed.
 */
export const RETIRED_KEY_LISTED_MS = 7 * 24 * 3600_000

export interface Jwk {
  kty: 'OKP'
  crv: 'Ed25519'
  x: string
  kid: string
  alg: 'EdDSA'
  use: 'sig'
}

/**
 * Signs callback bodies so receivers verify them with public information only (DESIGN.md
 * principle 3): a detached JWS (RFC 7515 Appendix F) with EdDSA over Ed25519 (RFC 8037) whose
 * payload is the exact body bytes. The compact form `<protected>..<signature>` goes in the
 * `X-Signature` header; the receiver puts base64url(raw body) between the two dots and
 * verifies against the key named by `kid` in GET /api/callbacks/jwks.
 */
export class CallbackSigner {
  constructor(
    private readonly keys: KeyStore,
    private readonly clock: Clock,
    private readonly retiredKeyListedMs = RETIRED_KEY_LISTED_MS,
  ) {}

  async sign(body: Uint8Array): Promise<{ signature: string; kid: string }> {
    const key = await this.keys.activeSigningKey(CALLBACK_KEY_OWNER, CALLBACK_KEY_PURPOSE)
    const jws = await signCompactJws(
      { kid: key.kid, iat: Math.floor(this.clock.now().getTime() / 1000), typ: CALLBACK_JWS_TYP },
      body,
      key.privateKey,
    )
    // Detached (RFC 7515 Appendix F): the receiver puts the body back between the dots.
    const [protectedHeader, , signature] = jws.split('.')
    return { signature: `${protectedHeader}..${signature}`, kid: key.kid }
  }

  /** The JWKS (RFC 7517 §5): the active key (made on first use) and recently retired ones. */
  async jwks(): Promise<{ keys: Jwk[] }> {
    await this.keys.activeSigningKey(CALLBACK_KEY_OWNER, CALLBACK_KEY_PURPOSE)
    const now = this.clock.now().getTime()
    const listed = (k: PublicKeyInfo): boolean =>
      k.algorithm === 'Ed25519' &&
      (k.status === 'active' || (k.retiredAt !== null && now - k.retiredAt.getTime() < this.retiredKeyListedMs))
    const keys = (await this.keys.list(CALLBACK_KEY_OWNER, CALLBACK_KEY_PURPOSE)).filter(listed)
    // Active first: clients that try keys in order find the current one at once.
    keys.sort((a, b) =>
      a.status === b.status ? b.createdAt.getTime() - a.createdAt.getTime() : a.status === 'active' ? -1 : 1,
    )
    return {
      keys: keys.map((k) => ({
        kty: 'OKP',
        crv: 'Ed25519',
        x: toBase64Url(k.publicKey),
        kid: k.kid,
        alg: 'EdDSA',
        use: 'sig',
      })),
    }
  }
}
