import { Oauth2ClientErrorResponseError, Oauth2Error, Oauth2ServerErrorResponseError } from '@openid4vc/oauth2'
import { Openid4vciError, Openid4vciRetrieveCredentialsError } from '@openid4vc/openid4vci'
import { OpenId4VcBaseError } from '@openid4vc/utils'
import { AppError, DependencyUnavailableError, UnprocessableError, ValidationError } from '../../../errors.js'
import { firstLine } from '../shared/library-message.js'

/**
 * One step of the hosted wallet's exchange with another service, run by a protocol library. What
 * it throws becomes the service's error: the other party's OAuth refusal a 422 naming the step
 * (`details.issuer_error`); its malformed or unverifiable answer a 422; an unparseable URL the
 * caller gave (`field`) a 400; an unreachable party a 503.
 */
export async function protocolStep<T>(step: string, field: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof AppError) throw error
    if (error instanceof Oauth2ClientErrorResponseError) {
      const { error: code, error_description: description } = error.errorResponse
      throw new UnprocessableError(`The issuer refused ${step}: ${code}${description ? ` (${description})` : ''}`, {
        details: { issuer_error: code },
      })
    }
    if (error instanceof Openid4vciRetrieveCredentialsError) {
      const answered = error.response.credentialErrorResponseResult?.data as
        | { error?: string; error_description?: string }
        | undefined
      throw new UnprocessableError(
        `The issuer refused ${step}: ${answered?.error ?? `HTTP ${error.response.response.status}`}${answered?.error_description ? ` (${answered.error_description})` : ''}`,
        { details: { issuer_error: answered?.error ?? null } },
      )
    }
    const cause = (error as { cause?: unknown }).cause
    if (cause instanceof AppError) throw cause
    if (error instanceof Oauth2ServerErrorResponseError)
      throw new UnprocessableError(`${step}: ${error.errorResponse.error_description ?? error.errorResponse.error}`)
    if (error instanceof Oauth2Error || error instanceof Openid4vciError)
      throw new UnprocessableError(`${step}: ${firstLine(error)}`)
    // A URL the caller gave that does not parse is its mistake; any other TypeError is fetch failing.
    if (error instanceof TypeError && (error as { code?: unknown }).code === 'ERR_INVALID_URL')
      throw new ValidationError(`${step}: ${field} is not a valid URL`, { details: { field } })
    if (error instanceof TypeError) throw new DependencyUnavailableError(`${step}: ${error.message}`)
    // The protocol libraries' own refusals of what the other party answered (schema, JSON, status).
    if (error instanceof OpenId4VcBaseError) throw new UnprocessableError(`${step}: ${firstLine(error)}`)
    throw error
  }
}
