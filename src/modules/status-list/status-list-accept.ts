import { STATUS_LIST_JWT_MEDIA_TYPE } from './token-status-list.js'
import { STATUS_LIST_CWT_MEDIA_TYPE } from './token-status-list-cwt.js'

/**
 * RFC 9110 §12.5.1: the quality an Accept header gives `mediaType`, from its most specific
 * matching range (type/subtype over type/* over *\/*); no header accepts everything (q 1).
 */
export function acceptQuality(accept: string | undefined, mediaType: string): number {
  if (!accept?.trim()) return 1
  const [type] = mediaType.split('/')
  let best = { specificity: -1, q: 0 }
  for (const range of accept.split(',')) {
    const [name = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    const specificity = name === mediaType ? 2 : name === `${type}/*` ? 1 : name === '*/*' ? 0 : -1
    if (specificity <= best.specificity) continue
    const qParam = params.find((p) => p.startsWith('q='))
    const q = qParam ? Number(qParam.slice(2)) : 1
    best = { specificity, q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0 }
  }
  return best.q
}

/**
 * draft-ietf-oauth-status-list §8.2: the CWT form when the request ranks it above the JWT form;
 * the JWT form otherwise (no Accept, wildcards, a tie), as before the CWT form existed.
 */
export function asksForCwt(accept: string | undefined): boolean {
  const cwt = acceptQuality(accept, STATUS_LIST_CWT_MEDIA_TYPE)
  return cwt > 0 && cwt > acceptQuality(accept, STATUS_LIST_JWT_MEDIA_TYPE)
}
