import { canonicalize } from '../../crypto/jcs.js'
import { ValidationError } from '../../errors.js'

/**
 * The callback event as receivers see it: the JSON body `{id, type, created_at, data}`,
 * serialised in RFC 8785 (JCS) form so every attempt of one event sends the same bytes.
 */
export interface CallbackEventInput {
  /** http(s) URL of the receiver (a presentation request's callback_url). */
  url: string
  /** Dotted lower-case name, e.g. `presentation.verified` (^[a-z]+(\.[a-z_]+)+$). */
  type: string
  /** JSON object; at most MAX_EVENT_DATA_BYTES in JSON form. */
  data: Record<string, unknown>
}

export interface CallbackEventBody {
  id: string
  type: string
  /** ISO 8601, when the event was enqueued (the state change committed with it). */
  created_at: string
  data: Record<string, unknown>
}

export const EVENT_TYPE_PATTERN = /^[a-z]+(\.[a-z_]+)+$/
export const MAX_EVENT_DATA_BYTES = 64 * 1024
export const MAX_URL_LENGTH = 2048

/**
 * Checks what the caller controls (a bad type or data is a bug of the caller: ValidationError)
 * and returns the data's JSON text. The URL is only checked for being a string of sane length
 * here: whether it can be called is decided at delivery, so a verifier's unusable callback_url
 * ends as a dead event with a readable last_error instead of failing the holder's action.
 */
export function checkEvent(event: CallbackEventInput): string {
  if (typeof event.type !== 'string' || event.type.length > 100 || !EVENT_TYPE_PATTERN.test(event.type)) {
    throw new ValidationError(`Callback event type must match ${EVENT_TYPE_PATTERN.source}`)
  }
  if (typeof event.url !== 'string' || event.url.length === 0 || event.url.length > MAX_URL_LENGTH) {
    throw new ValidationError(`Callback URL must be a string of 1 to ${MAX_URL_LENGTH} characters`)
  }
  if (typeof event.data !== 'object' || event.data === null || Array.isArray(event.data)) {
    throw new ValidationError('Callback event data must be a JSON object')
  }
  let text: string
  try {
    text = canonicalize(event.data)
  } catch (error) {
    throw new ValidationError(`Callback event data is not JSON: ${(error as Error).message}`)
  }
  if (Buffer.byteLength(text, 'utf8') > MAX_EVENT_DATA_BYTES) {
    throw new ValidationError(`Callback event data is larger than ${MAX_EVENT_DATA_BYTES} bytes`)
  }
  return text
}

/** The exact bytes POSTed (and signed): RFC 8785 form of the body. */
export function eventBodyBytes(body: CallbackEventBody): Uint8Array {
  return new Uint8Array(Buffer.from(canonicalize(body), 'utf8'))
}
