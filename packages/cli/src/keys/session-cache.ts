import path from 'node:path'
import { readPrivateJson, writePrivateJson } from './private-file.js'

export interface CachedSession {
  base_url: string
  did: string
  token: string
  expires_at: string
}

/** Margin before a token's expiry at which it is no longer used (a call must not race it). */
const EXPIRY_MARGIN_MS = 30_000

/** Session tokens per DID and service, in sessions.json beside the key file (mode 0600). */
export class SessionCache {
  readonly file: string

  constructor(keyFile: string) {
    this.file = path.join(path.dirname(keyFile), 'sessions.json')
  }

  get(baseUrl: string, did: string, now = Date.now()): CachedSession | undefined {
    const found = this.all().find((s) => s.base_url === baseUrl && s.did === did)
    return found && Date.parse(found.expires_at) - EXPIRY_MARGIN_MS > now ? found : undefined
  }

  put(session: CachedSession, now = Date.now()): void {
    const kept = this.all().filter(
      (s) => !(s.base_url === session.base_url && s.did === session.did) && Date.parse(s.expires_at) > now,
    )
    writePrivateJson(this.file, { version: 1, sessions: [...kept, session] })
  }

  private all(): CachedSession[] {
    return readPrivateJson<{ sessions?: CachedSession[] }>(this.file)?.sessions ?? []
  }
}
