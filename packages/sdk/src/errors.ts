/**
 * A non-2xx answer of the service. The service answers errors as `{ success: false, message, code }`
 * (src/plugins/error-handler.ts); `code` and `message` come from that body, `body` is it as read.
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError'
  readonly status: number
  readonly code: string
  readonly body: unknown

  constructor(status: number, code: string, message: string, body: unknown) {
    super(message)
    this.status = status
    this.code = code
    this.body = body
  }
}
