import {
  createServiceClient,
  exportHolderKey,
  generateHolderKey,
  importHolderKey,
  type HolderKey,
  type ServiceClient,
  type Session,
} from '@credential-service/sdk'
import { LocalError } from './args/command.js'
import { jsonObjectArg } from './args/values.js'
import type { GlobalSettings } from './args/global-options.js'
import { KeyFile } from './keys/key-file.js'
import { SessionCache } from './keys/session-cache.js'
import type { Output } from './output/output.js'

export interface SignedIn {
  client: ServiceClient
  key: HolderKey
  did: string
}

/** What a command works with: the settings, the output, the keys and a client of the service. */
export class Context {
  private keys?: KeyFile

  constructor(
    readonly settings: GlobalSettings,
    readonly out: Output,
  ) {}

  get did(): Promise<string> {
    return this.holderKey().then((k) => k.did)
  }

  keyFile(): KeyFile {
    this.keys ??= KeyFile.open(this.settings.keyFile)
    return this.keys
  }

  sessions(): SessionCache {
    return new SessionCache(this.settings.keyFile)
  }

  /** The acting key: --private-jwk / CPS_PRIVATE_JWK, else --key (or the default) of the key file. */
  async holderKey(): Promise<HolderKey> {
    const jwk = this.settings.privateJwk
      ? jsonObjectArg(this.settings.privateJwk, '--private-jwk')
      : this.keyFile().find(this.settings.key).private_jwk
    try {
      return await importHolderKey(jwk as JsonWebKey)
    } catch (error) {
      throw new LocalError(`the private JWK cannot be used: ${(error as Error).message}`)
    }
  }

  /**
   * The P-256 device key kept beside the acting key in the key file (an mdoc is bound to it,
   * ISO/IEC 18013-5 §9.1.2.4): with `create`, made and saved the first time it is needed.
   */
  async deviceKey(options: { create: boolean }): Promise<HolderKey | undefined> {
    if (this.settings.privateJwk && !options.create) return undefined
    if (this.settings.privateJwk)
      throw new LocalError(
        'an mdoc is bound to a P-256 device key kept in the key file beside the holder key: act with a key of the key file (--key), not --private-jwk',
      )
    const file = this.keyFile()
    let stored = file.find(this.settings.key)
    if (!stored.device_jwk) {
      if (!options.create) return undefined
      const made = await exportHolderKey(await generateHolderKey({ alg: 'ES256', extractable: true }))
      stored = file.setDeviceKey(stored.name, made.privateJwk)
    }
    try {
      return await importHolderKey(stored.device_jwk!)
    } catch (error) {
      throw new LocalError(`the device key of "${stored.name}" cannot be used: ${(error as Error).message}`)
    }
  }

  client(session?: Session): ServiceClient {
    return createServiceClient({ baseUrl: this.settings.baseUrl, ...(session ? { session } : {}) })
  }

  /** A client with a session for the acting key: the cached token while valid, else a new login (challenge signed here). */
  async signedIn(options: { fresh?: boolean } = {}): Promise<SignedIn & { expiresAt: string }> {
    const key = await this.holderKey()
    const cache = this.sessions()
    const cached = options.fresh ? undefined : cache.get(this.settings.baseUrl, key.did)
    if (cached)
      return {
        client: this.client({ token: cached.token, did: cached.did }),
        key,
        did: key.did,
        expiresAt: cached.expires_at,
      }
    const client = this.client()
    const session = await this.out.progress(`signing in as ${key.did}`, () => client.login(key))
    const expiresAt = tokenExpiry(session.token)
    cache.put({ base_url: this.settings.baseUrl, did: session.did, token: session.token, expires_at: expiresAt })
    return { client, key, did: key.did, expiresAt }
  }
}

/** The `exp` of a JWT (RFC 7519 §4.1.4), read without verifying: only to know when to sign in again. */
function tokenExpiry(token: string): string {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: number }
    if (typeof payload.exp === 'number') return new Date(payload.exp * 1000).toISOString()
  } catch {
    // Not a JWT we can read: keep it for the shortest lifetime below.
  }
  return new Date(Date.now() + 60_000).toISOString()
}
