import { Oauth2ResourceUnauthorizedError, Oauth2ServerErrorResponseError } from '@openid4vc/oauth2'
import { AppError, UnauthenticatedError, ValidationError } from '../../../errors.js'
import { firstLine } from '../shared/library-message.js'

/**
 * The error codes of RFC 6749 §5.2, RFC 9101 §7 (invalid_request_uri), RFC 6750 §3.1, RFC 9449 §7.1 and OpenID4VCI 1.0 §8.3.1.2,
 * §9.3, §11.3. The error handler answers `error` and `error_description` beside the service's
 * own fields (details.oauth_error).
 */
export type Oid4vciErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_client'
  | 'invalid_request_uri'
  | 'invalid_token'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  | 'invalid_credential_request'
  | 'unknown_credential_configuration'
  | 'invalid_proof'
  | 'invalid_nonce'
  | 'invalid_encryption_parameters'
  | 'credential_request_denied'
  | 'invalid_transaction_id'
  | 'invalid_notification_id'
  | 'invalid_notification_request'

/** The authorization endpoint answers JSON only: no sign-in page is built (docs/openid4vci.md). */
export class NotAcceptableError extends ValidationError {
  constructor() {
    super(
      'The authorization endpoint answers application/json only (the wallet or its user agent drives the DID sign-in)',
      { details: { oauth_error: 'invalid_request' } },
    )
  }
}

/** A 401 of a protected resource, with the WWW-Authenticate challenge the route answers (RFC 6750 §3, RFC 9449 §7.1). */
export class ResourceUnauthorized extends UnauthenticatedError {
  constructor(
    message: string,
    readonly wwwAuthenticate: string,
    code: Oid4vciErrorCode,
  ) {
    super(message, { details: { oauth_error: code } })
  }
}

/**
 * The error as the service raises it: `invalid_token` is a protected resource's 401 with its
 * challenge; `invalid_client` a 401; everything else a 400 (RFC 9449 §5: a bad DPoP proof at the
 * token endpoint too; the resource server's DPoP refusals come from the library as 401s).
 */
export function oid4vciError(code: Oid4vciErrorCode, description: string, cause?: unknown): AppError {
  const details = { oauth_error: code }
  if (code === 'invalid_token')
    return new ResourceUnauthorized(description, `DPoP error="${code}", Bearer error="${code}"`, code)
  return code === 'invalid_client'
    ? new UnauthenticatedError(description, { details, cause })
    : new ValidationError(description, { details, cause })
}

/** What the library threw while reading or verifying a request, as the protocol's error (or `fallback`). */
export function fromLibrary(error: unknown, fallback: Oid4vciErrorCode): AppError {
  if (error instanceof AppError) return error
  if (error instanceof Oauth2ResourceUnauthorizedError) {
    const first = error.wwwAuthenticateHeaders[0]
    const code = (first?.error as Oid4vciErrorCode | undefined) ?? 'invalid_token'
    // The challenge names the scheme and the code only: the library's descriptions may hold
    // characters a header cannot carry (quotes, line breaks); the body has the description.
    const scheme = first?.scheme === 'Bearer' ? 'Bearer' : 'DPoP'
    return new ResourceUnauthorized(
      firstLine(first?.error_description ?? 'The access token is missing or invalid'),
      `${scheme} error="${code}"${scheme === 'DPoP' ? ' algs="ES256 EdDSA"' : ''}`,
      code,
    )
  }
  if (error instanceof Oauth2ServerErrorResponseError) {
    const code = (error.errorResponse.error as Oid4vciErrorCode | undefined) ?? fallback
    return oid4vciError(code, error.errorResponse.error_description ?? firstLine(error.message), error)
  }
  return oid4vciError(fallback, firstLine(error), error)
}
