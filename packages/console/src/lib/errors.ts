import { ServiceError } from '@credential-service/sdk'

/** A readable line for an error: the service's own message and code, or the thrown message. */
export function describeError(error: unknown): string {
  if (error instanceof ServiceError) return `${error.message} (${error.code}, HTTP ${error.status})`
  if (error instanceof Error) return error.message
  return String(error)
}
