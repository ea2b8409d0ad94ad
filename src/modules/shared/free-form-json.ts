import { Type, type ObjectOptions } from '@sinclair/typebox'
import { FREE_FORM_KEYWORD } from '../../json-limits.js'

/**
 * A request field of any JSON object the client chooses (attribute maps, wallet metadata), held
 * to JSON_LIMITS by the validation layer: a value nested or sized past them is a 400 naming the
 * field before it reaches a service.
 */
export const FreeFormObject = (options: ObjectOptions = {}) =>
  Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { ...options, [FREE_FORM_KEYWORD]: true })
