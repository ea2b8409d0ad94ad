import type { VerifyJwtCallback } from '@openid4vc/oauth2'
import { AppError, UnprocessableError } from '../../../errors.js'

/**
 * Client identifier prefixes (OpenID4VP 1.0 §5.9.3) whose identity the hosted wallet can
 * establish: a DID that signed the request object (the library checks the signer is that DID), or
 * the response URI itself (`redirect_uri:`, unsigned). `pre-registered` needs a registry the wallet
 * has not (the library accepts any name), `verifier_attestation` an attestation it does not check
 * (any embedded key would do), `origin` is the DC API's, `openid_federation` and `x509_*` need trust
 * anchors it has not: a verifier of those could call itself anything.
 */
const AUTHENTICATED_PREFIXES = ['decentralized_identifier', 'redirect_uri']

export function authenticatedClient(prefix: string, effective: string): void {
  if (!AUTHENTICATED_PREFIXES.includes(prefix)) {
    const answered = `it answers ${AUTHENTICATED_PREFIXES.join(' and ')} verifiers, OpenID4VP 1.0 §5.9.3`
    const which = `The verifier ${JSON.stringify(effective)} uses the client identifier prefix "${prefix}"`
    throw new UnprocessableError(`${which}, which the hosted wallet cannot authenticate (${answered})`, {
      details: { client_id_prefix: prefix },
    })
  }
}

/**
 * @openid4vc/openid4vp fetches `client_metadata_uri` (a pre-1.0 parameter; OpenID4VP 1.0 has only
 * `client_metadata`) with the global fetch instead of the callbacks' guarded one: an SSRF past the
 * address checks. A request carrying it is refused before that fetch, in the plain parameters or,
 * for a request object, in the verifyJwt callback, which runs before the library reads the payload.
 */
export function refuseUnguardedFetches(params: Record<string, unknown>): void {
  if (params.client_metadata_uri !== undefined) {
    const message = 'The request names client_metadata_uri, which OpenID4VP 1.0 does not define: '
    throw new UnprocessableError(`${message}the verifier must send client_metadata by value`, {
      details: { parameter: 'client_metadata_uri' },
    })
  }
}

export function refusingUnguardedFetches(verify: VerifyJwtCallback): VerifyJwtCallback {
  return async (signer, jwt) => {
    refuseUnguardedFetches(jwt.payload)
    return verify(signer, jwt)
  }
}

/**
 * The guarded fetch, remembering what it refused (a private address, an oversized answer): the
 * library replaces a failed fetch of the request_uri by its own generic error, and the refusal is
 * what the holder needs to read.
 */
export function rememberingRefusals(fetch: typeof globalThis.fetch): {
  fetch: typeof globalThis.fetch
  refusal(): AppError | undefined
} {
  let refused: AppError | undefined
  return {
    fetch: (async (input: Parameters<typeof globalThis.fetch>[0], init?: Parameters<typeof globalThis.fetch>[1]) => {
      try {
        return await fetch(input, init)
      } catch (error) {
        if (error instanceof AppError) refused ??= error
        else if ((error as { cause?: unknown }).cause instanceof AppError)
          refused ??= (error as { cause: AppError }).cause
        throw error
      }
    }) as typeof globalThis.fetch,
    refusal: () => refused,
  }
}

/**
 * The verifier's `redirect_uri` (OpenID4VP 1.0 §8.2) is passed to the holder's client, which
 * navigates to it: only an https URL is passed on, never `javascript:`, `data:` or a cleartext one.
 */
export function safeRedirect(uri: unknown): string | null {
  if (typeof uri !== 'string' || !URL.canParse(uri)) return null
  return new URL(uri).protocol === 'https:' ? uri : null
}
