import type { ServiceClient } from '../client.js'
import type { paths } from '../generated/schema.js'
import type { HolderKey } from '../keys.js'
import { holderDid } from './session.js'

type PreviewBody = paths['/api/wallet/{did}/offers/preview']['post']['responses'][200]['content']['application/json']

/**
 * What an OpenID4VCI offer asks the holder to take, read before anything is redeemed: the issuer
 * (`credential_issuer`, `issuer.name`, `issuer.logo_uri`, `issuer.domain`), each offered credential
 * (`credential_configurations`, with its claims), the transaction code asked for and the grant.
 */
export type OfferPreview = Omit<PreviewBody, 'success' | 'message'>

/**
 * Looks at an OpenID4VCI credential offer before accepting it (docs/openid4vc.md "Looking at an
 * offer first"): the service reads the offer and the issuer's metadata (OID4VCI 1.0 §4.1, §12.2)
 * without calling the token endpoint, so the offer stays unredeemed, to be taken with
 * `acceptOffer` or refused with `declineOffer`.
 */
export async function resolveOffer(c: ServiceClient, k: HolderKey, o: { offerUri: string }): Promise<OfferPreview> {
  const did = holderDid(c, k)
  const { data } = await c.api.POST('/api/wallet/{did}/offers/preview', {
    params: { path: { did } },
    body: { offer_uri: o.offerUri },
  })
  const { success: _success, message: _message, ...preview } = data!
  return preview
}

export interface DeclineOfferResult {
  /** The issuer the declined offer named; null when the offer could not be read any more. */
  credentialIssuer: string | null
}

/** Declines an OpenID4VCI offer: the refusal is recorded in the holder's activity (OpenID4VCI has no message that tells the issuer). */
export async function declineOffer(
  c: ServiceClient,
  k: HolderKey,
  o: { offerUri: string; reason?: string },
): Promise<DeclineOfferResult> {
  const did = holderDid(c, k)
  const { data } = await c.api.POST('/api/wallet/{did}/offers/decline', {
    params: { path: { did } },
    body: { offer_uri: o.offerUri, ...(o.reason === undefined ? {} : { reason: o.reason }) },
  })
  return { credentialIssuer: data!.credential_issuer }
}

/** What acceptOffer's `previewed` takes from a preview: the issuer and the configuration the holder saw (its first). */
export function previewedOf(preview: OfferPreview): { credentialIssuer: string; credentialConfigurationId?: string } {
  const first = preview.credential_configurations[0]?.id
  return { credentialIssuer: preview.credential_issuer, ...(first ? { credentialConfigurationId: first } : {}) }
}
