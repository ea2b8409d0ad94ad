/**
 * A non-2xx answer of the service. Its errors have one body, `{ success: false, message, code,
 * request_id, details? }` (README "Errors"); the OAuth endpoints answer `{ error,
 * error_description }` (RFC 6749 §5.2). Anything else (a proxy's HTML 502) still becomes a
 * ServiceError, with a generic message and `HTTP_<status>` as its code.
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

  /** The error a response stands for (its body is read from a clone). */
  static async fromResponse(response: Response): Promise<ServiceError> {
    const text = await response
      .clone()
      .text()
      .catch(() => '')
    let body: unknown = text
    try {
      body = text ? JSON.parse(text) : undefined
    } catch {
      // Not JSON: kept as text in `body`, a generic message below.
    }
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
    const code = stringField(fields, 'code') ?? stringField(fields, 'error') ?? `HTTP_${response.status}`
    const message =
      stringField(fields, 'message') ??
      stringField(fields, 'error_description') ??
      `The service answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`
    return new ServiceError(response.status, code, message, body)
  }
}

function stringField(o: Record<string, unknown>, name: string): string | undefined {
  const v = o[name]
  return typeof v === 'string' && v !== '' ? v : undefined
}
