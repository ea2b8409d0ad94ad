import { JSON_LIMITS, nestingPastLimit } from '../../../json-limits.js'
import { ValidationError } from '../../../errors.js'

/** What the wallet posts to request_uri (OID4VP 1.0 §5.10.1), as read. */
export interface WalletPost {
  walletNonce: string | undefined
  metadata: Record<string, unknown> | undefined
}

const refuse = (description: string) =>
  new ValidationError(description, { details: { oauth_error: 'invalid_request' } })

/**
 * The wallet's `wallet_metadata` (OID4VP 1.0 §10, JSON) and `wallet_nonce` (§5.10.1). The request
 * object answered must be one the wallet can take: an ES256 signature when it lists
 * `request_object_signing_alg_values_supported`, a client id prefix it lists in
 * `client_id_prefixes_supported`; else the request cannot be served to it (400 invalid_request).
 */
export function readWalletPost(
  form: { wallet_metadata?: string; wallet_nonce?: string },
  clientId: string,
): WalletPost {
  let metadata: Record<string, unknown> | undefined
  if (form.wallet_metadata !== undefined) {
    if (nestingPastLimit(form.wallet_metadata, JSON_LIMITS.documentDepth))
      throw refuse(`wallet_metadata must not nest deeper than ${JSON_LIMITS.documentDepth} levels`)
    let parsed: unknown
    try {
      parsed = JSON.parse(form.wallet_metadata)
    } catch {
      throw refuse('wallet_metadata must be a JSON object (OID4VP 1.0 §5.10.1)')
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw refuse('wallet_metadata must be a JSON object (OID4VP 1.0 §5.10.1)')
    metadata = parsed as Record<string, unknown>
  }
  const algs = metadata?.request_object_signing_alg_values_supported
  if (Array.isArray(algs) && !algs.includes('ES256'))
    throw refuse('The wallet supports no request object algorithm this verifier signs with (ES256)')
  const prefixes = metadata?.client_id_prefixes_supported
  const prefix = clientId.slice(0, clientId.indexOf(':'))
  if (Array.isArray(prefixes) && !prefixes.includes(prefix))
    throw refuse(`The wallet does not support the client id prefix ${prefix} of this request`)
  return { walletNonce: form.wallet_nonce, metadata }
}
