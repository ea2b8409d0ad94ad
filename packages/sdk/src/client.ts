import type { Client } from 'openapi-fetch'
import type { paths } from './generated/schema.js'
import type { HolderKey } from './keys.js'

/** A signed-in DID: the bearer token and the DID it belongs to (sent as X-User-DID). */
export interface Session {
  token: string
  did: string
}

export interface ServiceClient {
  /** Typed calls of the service's routes; adds the session's headers; any non-2xx throws ServiceError. */
  readonly api: Client<paths>
  session: Session | undefined
  /** Challenge login (POST /api/auth/challenge, sign, POST /api/auth/verify-challenge); sets `session`. */
  login(key: HolderKey): Promise<Session>
}

export interface ServiceClientOptions {
  baseUrl: string
  fetch?: typeof fetch
  session?: Session
}

export function createServiceClient(_o: ServiceClientOptions): ServiceClient {
  throw new Error('not implemented')
}
