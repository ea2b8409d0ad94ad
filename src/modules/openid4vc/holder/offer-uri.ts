import { ValidationError } from '../../../errors.js'

/** An offer URI as a wallet receives it: any scheme, with the offer by value or by reference (OID4VCI 1.0 §4.1). */
export function offerText(uri: string): string {
  const text = uri.trim()
  const params = URL.canParse(text) ? new URL(text).searchParams : undefined
  if (!params?.has('credential_offer') && !params?.has('credential_offer_uri')) {
    throw new ValidationError(
      'offer_uri must be a credential offer URI: openid-credential-offer://?credential_offer_uri=… or ?credential_offer=… (OID4VCI 1.0 §4.1)',
      { details: { field: 'offer_uri' } },
    )
  }
  return text
}
