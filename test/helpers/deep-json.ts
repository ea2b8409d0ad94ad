import { sign } from 'node:crypto'
import type { DidClient } from './did-client.js'

/**
 * JSON text built as text: JSON.stringify itself overflows the stack a few thousand levels down,
 * so values deeper than that (and the requests that carry them) are written here by concatenation.
 */

/** `depth` nested objects (`{"a":…}`) or arrays around `leaf` (JSON text). */
export function nestedJsonText(depth: number, kind: 'object' | 'array' = 'object', leaf = '"x"'): string {
  return kind === 'object'
    ? `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`
    : `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`
}

/** A JSON object's text with `property` set to `valueText` as is (the rest serialized normally). */
export function withRawProperty(value: Record<string, unknown>, property: string, valueText: string): string {
  const rest = JSON.stringify(value)
  return `${rest.slice(0, -1)}${rest.length > 2 ? ',' : ''}${JSON.stringify(property)}:${valueText}}`
}

/** A compact JWS (EdDSA, `kid` the signer's did:key) over payload text as given. */
export function signJwtText(signer: DidClient, payloadText: string): string {
  const header = { alg: 'EdDSA', typ: 'JWT', kid: `${signer.did}#${signer.did.slice('did:key:'.length)}` }
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(payloadText).toString('base64url')}`
  return `${input}.${sign(null, Buffer.from(input), signer.privateKey).toString('base64url')}`
}
