/**
 * One error tree for the whole service. Domain code throws these with a code; the single
 * error-handler plugin maps code -> HTTP status (DESIGN.md "Errors"). No HTTP knowledge here.
 */
export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UNPROCESSABLE'
  | 'RATE_LIMITED'
  | 'DEPENDENCY_UNAVAILABLE'
  | 'INTERNAL'

export interface AppErrorOptions {
  cause?: unknown
  /** Extra, client-safe facts (field names, limits). Never secrets. */
  details?: Record<string, unknown>
}

export class AppError extends Error {
  readonly code: ErrorCode
  readonly details?: Record<string, unknown>

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.code = code
    this.details = options.details
  }
}

export class ValidationError extends AppError {
  constructor(message: string, options?: AppErrorOptions) {
    super('VALIDATION_FAILED', message, options)
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'Authentication required', options?: AppErrorOptions) {
    super('UNAUTHENTICATED', message, options)
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Not allowed to act for this DID', options?: AppErrorOptions) {
    super('FORBIDDEN', message, options)
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found', options?: AppErrorOptions) {
    super('NOT_FOUND', message, options)
  }
}

export class ConflictError extends AppError {
  constructor(message: string, options?: AppErrorOptions) {
    super('CONFLICT', message, options)
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message: string, options?: AppErrorOptions) {
    super('PAYLOAD_TOO_LARGE', message, options)
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message: string, options?: AppErrorOptions) {
    super('UNSUPPORTED_MEDIA_TYPE', message, options)
  }
}

export class UnprocessableError extends AppError {
  constructor(message: string, options?: AppErrorOptions) {
    super('UNPROCESSABLE', message, options)
  }
}

export class RateLimitedError extends AppError {
  constructor(message = 'Too many requests', options?: AppErrorOptions) {
    super('RATE_LIMITED', message, options)
  }
}

export class DependencyUnavailableError extends AppError {
  constructor(message: string, options?: AppErrorOptions) {
    super('DEPENDENCY_UNAVAILABLE', message, options)
  }
}

/** The embedded database directory is open in another process: a refusal to start, not a request's answer. */
export class DataDirInUseError extends AppError {
  constructor(message: string, options?: AppErrorOptions) {
    super('CONFLICT', message, options)
  }
}

/** A setting differs from what the database recorded for every instance sharing it: a refusal to start. */
export class InstanceSettingsMismatchError extends AppError {
  constructor(message: string, options?: AppErrorOptions) {
    super('CONFLICT', message, options)
  }
}
