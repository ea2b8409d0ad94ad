/**
 * The typed client: openapi-fetch over the types generated from the service's OpenAPI document
 * (generated/schema.ts), with one middleware that sends the session and turns every non-2xx
 * answer into a ServiceError, so callers read `data` without checking `error`.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch'
import { base64url } from 'jose'
import { ServiceError } from './errors.js'
import type { paths } from './generated/schema.js'
import { signBytes, type HolderKey } from './keys.js'
import { retryingFetch, type RetryOptions } from './retry.js'

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
  /** The service's origin, e.g. `https://credentials.example` (routes start with /api). */
  baseUrl: string
  /** Default globalThis.fetch; always called with one Request (so `typeof fetch` fits, and so does a recorder or a test double). */
  fetch?: (request: Request) => Promise<Response>
  session?: Session
  /**
   * Creating POSTs (the routes that take an Idempotency-Key) get a key and are sent again when
   * the answer is lost, the service is briefly unavailable, or the first attempt is still in
   * progress; the service answers the first result. Default 2 retries; `{ retries: 0 }` sends once.
   */
  retry?: RetryOptions
}

export function createServiceClient(o: ServiceClientOptions): ServiceClient {
  const custom = o.fetch
  const api = createClient<paths>({
    baseUrl: o.baseUrl.replace(/\/+$/, ''),
    // Called as a plain function: browsers refuse a `fetch` invoked as another object's method.
    fetch: retryingFetch(custom ? (request) => custom(request) : (request) => globalThis.fetch(request), o.retry),
  })
  const client: ServiceClient = {
    api,
    session: o.session,
    async login(key) {
      const { data: challenge } = await api.POST('/api/auth/challenge', { body: { did: key.did } })
      // The service checks an Ed25519 signature over the challenge's UTF-8 bytes (README "sign in with a DID").
      const signature = base64url.encode(await signBytes(key, new TextEncoder().encode(challenge!.challenge)))
      const { data } = await api.POST('/api/auth/verify-challenge', {
        body: { did: key.did, challenge: challenge!.challenge, signature },
      })
      client.session = { token: data!.token, did: key.did }
      return client.session
    },
  }
  api.use(sessionAndErrors(() => client.session))
  return client
}

/**
 * `Authorization: Bearer` and `X-User-DID` from the current session (unless the call sets its
 * own), and a ServiceError for any answer outside 2xx.
 */
function sessionAndErrors(session: () => Session | undefined): Middleware {
  return {
    onRequest({ request }) {
      const s = session()
      if (s && !request.headers.has('authorization')) {
        request.headers.set('authorization', `Bearer ${s.token}`)
        if (!request.headers.has('x-user-did')) request.headers.set('x-user-did', s.did)
      }
      return request
    },
    async onResponse({ response }) {
      if (!response.ok) throw await ServiceError.fromResponse(response)
      return response
    },
  }
}
