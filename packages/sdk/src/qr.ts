/**
 * What a QR code of this service holds, and what it means to a wallet:
 * - `openid-credential-offer://…` (OID4VCI 1.0 §4.1; `haip-vci://` under HAIP 1.0): an offer for acceptOffer;
 * - `openid4vp://…` (OID4VP 1.0 §5; `haip-vp://`): a request for answerPresentationRequest;
 * - the spec's JSON payloads `{type: "credential-offer", offer_id, …}` and
 *   `{type: "presentation-request", request_id, …}` (`qr_code_data`); the request's id goes to presentToRequest.
 * The short URLs the spec's QR routes make (`…/api/qr/resolve/:short_id`) are resolved by resolveQrPayload.
 */
import type { ServiceClient } from './client.js'

export type QrPayloadKind = 'oid4vci-offer' | 'oid4vp-request' | 'spec-offer' | 'spec-request'

export interface QrPayload {
  kind: QrPayloadKind
  /** The URI to pass on (OpenID4VC), or the offer's or request's id (spec payloads). */
  value: string
  /** The URI as text, or the JSON payload parsed. */
  raw: unknown
}

const SCHEMES: Record<string, QrPayloadKind> = {
  'openid-credential-offer:': 'oid4vci-offer',
  'haip-vci:': 'oid4vci-offer',
  'openid4vp:': 'oid4vp-request',
  'haip-vp:': 'oid4vp-request',
}

const SHORT_URL = /\/api\/qr\/resolve\/([^/?#]+)$/

export function parseQrPayload(text: string): QrPayload {
  const trimmed = text.trim()
  if (trimmed.startsWith('{')) return specPayload(trimmed)
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(trimmed)?.[0].toLowerCase()
  const kind = scheme ? SCHEMES[scheme] : undefined
  if (kind) return { kind, value: trimmed, raw: trimmed }
  if (SHORT_URL.test(trimmed))
    throw new Error('A short URL of this service: resolve it with resolveQrPayload(client, text)')
  throw new Error(
    'Not a QR payload of this service: expected openid-credential-offer://, openid4vp:// or the JSON of an offer or request',
  )
}

/** parseQrPayload, after resolving a short URL (`GET /api/qr/resolve/:short_id`, public) on this client's service. */
export async function resolveQrPayload(c: ServiceClient, text: string): Promise<QrPayload> {
  const shortId = SHORT_URL.exec(text.trim())?.[1]
  if (!shortId) return parseQrPayload(text)
  const { data } = await c.api.GET('/api/qr/resolve/{short_id}', {
    params: { path: { short_id: decodeURIComponent(shortId) } },
  })
  return specPayload(JSON.stringify(data!.payload))
}

function specPayload(text: string): QrPayload {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    throw new Error('The QR payload looks like JSON but does not parse')
  }
  const o = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>
  if (o.type === 'credential-offer' && typeof o.offer_id === 'string')
    return { kind: 'spec-offer', value: o.offer_id, raw }
  if (o.type === 'presentation-request' && typeof o.request_id === 'string')
    return { kind: 'spec-request', value: o.request_id, raw }
  throw new Error(
    'A JSON QR payload must be a credential-offer with offer_id or a presentation-request with request_id',
  )
}
