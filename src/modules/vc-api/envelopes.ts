import { ValidationError } from '../../errors.js'
import { VC_V2 } from '../../shared/vc-contexts.js'

type EnvelopeType = 'EnvelopedVerifiableCredential' | 'EnvelopedVerifiablePresentation'

/** VCDM 2.0 §4.13: a credential secured by an enveloping proof, carried as a `data:` URL (RFC 2397). */
export function envelopeOf(mediaType: string, text: string, type: EnvelopeType): Record<string, unknown> {
  return { '@context': VC_V2, id: `data:${mediaType},${text}`, type }
}

/**
 * The secured form inside an envelope (its `data:` URL's text), or the item itself when it is not
 * one. A malformed envelope is a 400 naming what is wrong.
 */
export function unwrapEnvelope(item: unknown, type: EnvelopeType): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item
  const record = item as Record<string, unknown>
  const types = Array.isArray(record.type) ? record.type : [record.type]
  if (!types.includes(type)) return item
  const id = record.id
  const match = typeof id === 'string' ? /^data:([^,;]+)(;[^,]*)?,(.*)$/s.exec(id) : null
  if (!match) throw new ValidationError(`an ${type} needs an id that is a data: URL`)
  if (match[2]?.includes('base64')) throw new ValidationError(`an ${type}'s data: URL must carry its text, not base64`)
  try {
    return decodeURIComponent(match[3]!)
  } catch {
    throw new ValidationError(`an ${type}'s data: URL is not well percent-encoded`)
  }
}
