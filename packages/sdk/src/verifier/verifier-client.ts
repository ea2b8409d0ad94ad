/**
 * The verifier's common tasks over the typed client: its profile, a presentation request (the
 * spec's, and the same request as an OpenID4VP 1.0 Authorization Request, docs/openid4vp.md),
 * waiting for the holder's answer, and verifying a presentation.
 */
import type { ServiceClient } from '../client.js'
import type { RouteAnswer, RouteBody } from '../route-types.js'
import { signedInDid } from '../sign-in.js'

export type VerifierProfileInput = RouteBody<'/api/verifier', 'post'>
export type VerifierProfile = RouteAnswer<'/api/verifier', 'post', 201>['verifier']
/** The spec's request body; `verifier_did` defaults to the signed-in DID. */
export type PresentationRequestInput = Omit<RouteBody<'/api/verifier/requests', 'post'>, 'verifier_did'> & {
  verifier_did?: string
}
export type PresentationRequest = RouteAnswer<'/api/verifier/requests/{id}', 'get', 200>['request']
/** A presentation as the verifier's listing shows it (`GET /api/verifier/presentations/:id` adds the VP itself). */
export type Presentation = RouteAnswer<'/api/verifier/{did}/presentations', 'get', 200>['presentations'][number]
export type VerificationOutcome = RouteAnswer<'/api/verifier/presentations/{id}/verify', 'post', 200>

export interface CreatedPresentationRequest {
  request: PresentationRequest
  /** The spec's QR payload (JSON text with the request's id), for this service's own wallet. */
  qrCodeData: string
  /**
   * OID4VP 1.0 §5: the `openid4vp://` Authorization Request for any standard wallet; null when
   * the service is not on https or the request asks nothing DCQL can express.
   */
  authorizationRequestUri: string | null
}

/** How a request ended, as its verifier sees it. */
export interface RequestResult {
  /** answered: a presentation came (see its status: verified, failed or submitted); declined: the holder refused; expired: nobody answered in time. */
  outcome: 'answered' | 'declined' | 'expired'
  request: PresentationRequest
  /** The presentation that answered it (answered only). */
  presentation: Presentation | null
  /** The holder's reason or the wallet's error_description, when declined and given. */
  reason: string | null
}

export interface WaitOptions {
  /** Stops waiting (the promise rejects with the signal's reason), e.g. `AbortSignal.timeout(120_000)`. */
  signal?: AbortSignal
  /** Between two reads of the request; default 1000 ms. */
  intervalMs?: number
}

export interface VerifierClient {
  readonly client: ServiceClient
  readonly did: string
  /** Creates the verifier profile of the signed-in DID (`POST /api/verifier`); its name is what holders see. */
  createProfile(profile: VerifierProfileInput): Promise<VerifierProfile>
  /** A presentation request (`POST /api/verifier/requests`): the spec's, and its OpenID4VP URI on https. */
  createPresentationRequest(request: PresentationRequestInput): Promise<CreatedPresentationRequest>
  /** The same, for a standard wallet: fails unless the service made an `openid4vp://` URI of it. */
  createOpenid4vpRequest(
    request: PresentationRequestInput,
  ): Promise<CreatedPresentationRequest & { authorizationRequestUri: string }>
  getRequest(requestId: string): Promise<PresentationRequest>
  /** Reads the request until it is answered, declined or expired. */
  waitForResult(requestId: string, options?: WaitOptions): Promise<RequestResult>
  /**
   * Verifies a presentation (`POST /api/verifier/presentations/:id/verify`): signatures, holder
   * binding, nonce, audience, status, requirements, predicates, consent. The VP is read from the
   * service unless given.
   */
  verify(presentationId: string, options?: { presentationJwt?: string }): Promise<VerificationOutcome>
}

const ANSWERED = new Set(['submitted', 'verified', 'failed'])

/** The verifier's helpers on a signed-in client (`await client.login(key)` or `signIn`). */
export function createVerifierClient(client: ServiceClient): VerifierClient {
  const did = () => signedInDid(client)

  async function read(requestId: string, signal?: AbortSignal) {
    did() // a request is read with the verifier's session
    const { data } = await client.api.GET('/api/verifier/requests/{id}', {
      params: { path: { id: requestId } },
      ...(signal ? { signal } : {}),
    })
    return data!
  }

  /** The verifier's presentation answering this request (the listing, newest first, by keyset pages). */
  async function answeringPresentation(requestId: string, signal?: AbortSignal): Promise<Presentation | null> {
    let cursor: string | undefined
    do {
      const { data } = await client.api.GET('/api/verifier/{did}/presentations', {
        params: { path: { did: did() }, query: { limit: 100, ...(cursor ? { cursor } : {}) } },
        ...(signal ? { signal } : {}),
      })
      const found = data!.presentations.find((p) => p.request_id === requestId)
      if (found) return found
      cursor = data!.next_cursor ?? undefined
    } while (cursor)
    return null
  }

  const self: VerifierClient = {
    client,
    get did() {
      return did()
    },
    async createProfile(profile) {
      return (await client.api.POST('/api/verifier', { body: profile })).data!.verifier
    },
    async createPresentationRequest(request) {
      const { data } = await client.api.POST('/api/verifier/requests', {
        body: { ...request, verifier_did: request.verifier_did ?? did() },
      })
      const created = data!
      return {
        request: created.request,
        qrCodeData: created.qr_code_data,
        authorizationRequestUri: created.authorization_request_uri ?? null,
      }
    },
    async createOpenid4vpRequest(request) {
      const created = await self.createPresentationRequest(request)
      const uri = created.authorizationRequestUri
      if (!uri) {
        throw new Error(
          `Request ${created.request.id} has no openid4vp:// URI: the service makes one only on https (OID4VP 1.0 needs an https response_uri) and for a request that names a credential or a predicate`,
        )
      }
      return { ...created, authorizationRequestUri: uri }
    },
    async getRequest(requestId) {
      return (await read(requestId)).request
    },
    async waitForResult(requestId, options = {}) {
      const { signal, intervalMs = 1000 } = options
      for (;;) {
        signal?.throwIfAborted()
        const { request, answers, openid4vp } = await read(requestId, signal)
        if (ANSWERED.has(request.status))
          return {
            outcome: 'answered',
            request,
            presentation: await answeringPresentation(requestId, signal),
            reason: null,
          }
        // A holder's rejection in the spec's inbox, or a wallet's OpenID4VP error response (§8.5). Either
        // closes an addressed request; an unaddressed one stays open to others, but this answer is a no.
        const rejection = answers.find((a) => a.status === 'rejected')
        const walletError = openid4vp?.holder_response ?? null
        if (request.status === 'rejected' || rejection || walletError) {
          return {
            outcome: 'declined',
            request,
            presentation: null,
            reason: rejection?.reason ?? walletError?.error_description ?? null,
          }
        }
        if (request.status === 'expired') return { outcome: 'expired', request, presentation: null, reason: null }
        await sleep(intervalMs, signal)
      }
    },
    async verify(presentationId, options = {}) {
      const presentationJwt =
        options.presentationJwt ??
        (await client.api.GET('/api/verifier/presentations/{id}', { params: { path: { id: presentationId } } })).data!
          .presentation.presentation_jwt
      const { data } = await client.api.POST('/api/verifier/presentations/{id}/verify', {
        params: { path: { id: presentationId } },
        body: { presentation_jwt: presentationJwt },
      })
      return data!
    },
  }
  return self
}

/** A wait that an abort ends at once (rejecting with the signal's reason). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const done = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', done)
      resolve()
    }, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
