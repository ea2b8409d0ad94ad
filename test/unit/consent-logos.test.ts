import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { describeOffer } from '../../src/modules/openid4vc/holder/offer-preview.service.js'
import { verifierIdentity } from '../../src/modules/openid4vc/holder/presentation-answer.service.js'

// What an issuer or verifier writes about itself reaches the holder's screen as a logo URL: only an
// https URL may (no javascript:, data: or plain http that a console would put in an <img> or <a>).
const LOGOS: Array<[string, string | null]> = [
  ['https://issuer.example/logo.png', 'https://issuer.example/logo.png'],
  ['javascript:alert(1)', null],
  ['data:image/svg+xml,<svg onload=alert(1)>', null],
  ['http://issuer.example/logo.png', null],
  ['not a url', null],
]

describe('logos of the offer and request previews', () => {
  it('the offer preview shows an issuer logo only when it is an https URL (OID4VCI 1.0 §12.2.4 logo.uri)', () => {
    for (const [uri, shown] of LOGOS) {
      const metadata = {
        credentialIssuer: {
          credential_issuer: 'https://issuer.example',
          credential_configurations_supported: {},
          display: [{ name: 'Issuer', logo: { uri } }],
        },
      }
      const preview = describeOffer(
        { credential_issuer: 'https://issuer.example', credential_configuration_ids: [] } as never,
        metadata as never,
      )
      assert.equal(preview.issuer.logo_uri, shown, uri)
    }
  })

  it('the request preview shows a verifier logo only when it is an https URL (client_metadata.logo_uri, RFC 7591 §2)', () => {
    for (const [uri, shown] of LOGOS) {
      const client = {
        prefix: 'decentralized_identifier',
        effective: 'decentralized_identifier:did:key:z6Mk',
        identifier: 'did:key:z6Mk',
        clientMetadata: { client_name: 'Shop', logo_uri: uri },
      }
      const identity = verifierIdentity(client, { response_uri: 'https://shop.example/response' } as never)
      assert.equal(identity.logo_uri, shown, uri)
      assert.equal(identity.name, 'Shop')
    }
  })
})
